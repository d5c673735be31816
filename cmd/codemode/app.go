package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/internal/upstream"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

const presetKey = "codemode"

// commonFlags are the flags every command that mounts tools shares.
type commonFlags struct {
	config  string
	engine  string
	mode    string
	timeout time.Duration
	memory  string
	verbose bool
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "config `file` (default ./codemode.json if present, else the embedded default: the fake MCP server)")
	fs.StringVar(&c.engine, "engine", "", "JavaScript engine: goja or wazero (overrides the config)")
	fs.StringVar(&c.mode, "mode", "", "environments: per-call or persistent-in-memory (overrides the config)")
	fs.DurationVar(&c.timeout, "timeout", 0, "wall-clock limit per program, e.g. 30s (overrides the config)")
	fs.StringVar(&c.memory, "memory", "", "memory budget per environment, e.g. 256MiB (overrides the config)")
	fs.BoolVar(&c.verbose, "v", false, "verbose logs on stderr")
}

// loadConfig finds and parses the configuration, then applies flag
// overrides. Errors are configuration errors (exit 2).
func (c *commonFlags) loadConfig() (*config.Config, string, error) {
	var cfg *config.Config
	var src string
	switch {
	case c.config != "":
		var err error
		if cfg, err = config.Load(c.config); err != nil {
			return nil, "", err
		}
		src = c.config
	default:
		if _, err := os.Stat("codemode.json"); err == nil {
			if cfg, err = config.Load("codemode.json"); err != nil {
				return nil, "", err
			}
			src = "codemode.json"
		} else {
			exe, err := os.Executable()
			if err != nil {
				return nil, "", fmt.Errorf("locating the codemode executable for the embedded default: %w", err)
			}
			cfg, src = config.Default(exe), "embedded default"
		}
	}
	resolveSelf(cfg)
	if c.engine != "" {
		if !runtime.KnownEngine(c.engine) {
			return nil, "", fmt.Errorf("--engine: %q is not an engine (want one of %q)", c.engine, runtime.Engines())
		}
		cfg.CodeMode.Engine = c.engine
	}
	if c.mode != "" {
		if !runtime.KnownMode(runtime.Mode(c.mode)) {
			return nil, "", fmt.Errorf("--mode: %q is not a mode (want one of %q)", c.mode, runtime.Modes())
		}
		cfg.CodeMode.Mode = c.mode
	}
	if c.timeout < 0 {
		return nil, "", fmt.Errorf("--timeout: must be positive")
	}
	if c.timeout > 0 {
		cfg.CodeMode.Timeout = c.timeout
	}
	if c.memory != "" {
		n, err := config.ParseSize(c.memory)
		if err != nil || n <= 0 {
			return nil, "", fmt.Errorf("--memory: %q is not a size (e.g. 256MiB)", c.memory)
		}
		cfg.CodeMode.Memory = n
	}
	return cfg, src, nil
}

// app is a mounted code-mode host: the scope tree (host → preset), the
// registry, the upstream servers and the preset.
type app struct {
	host     *scope.Scope
	reg      *tools.Registry
	preset   *scope.Scope
	plugin   *codemode.Plugin
	upstream *upstream.Manager
	policy   *policy.Policy
	trail    *audit.Trail // nil without an audit trail
	log      *slog.Logger
}

func newApp(ctx context.Context, cfg *config.Config, log *slog.Logger) (*app, error) {
	a := &app{log: log}
	a.host = scope.NewHost("host")
	var err error
	if a.policy, err = policy.New(cfg.PolicyOptions(log)); err != nil {
		return nil, err
	}
	ropts := cfg.RegistryOptions(log)
	ropts.Approver = a.policy
	a.reg = tools.New(ropts)
	// The trail first: the outermost middleware, so it sees every call and
	// its final result, and its line is written before the call is done.
	if opts, ok := cfg.AuditOptions(log); ok {
		opts.Session = a.policy.SessionOf
		if a.trail, err = audit.Open(opts); err != nil {
			return nil, err
		}
		a.reg.Use(a.trail.Middleware())
	}
	a.policy.Install(a.reg)
	a.preset = a.host.Child(scope.KindPreset, presetKey)
	m, err := upstream.Start(ctx, a.reg, cfg.Servers, upstream.Options{Logger: log})
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("starting MCP servers: %w", err)
	}
	a.upstream = m
	a.plugin, err = codemode.Mount(a.reg, a.preset, cfg.PresetOptions(log))
	if err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func (a *app) Close() {
	if a.plugin != nil {
		a.plugin.Close()
	}
	if a.upstream != nil {
		a.upstream.Close()
	}
	a.host.Dispose()
	if a.trail != nil {
		_ = a.trail.Close()
	}
}

// resolveSelf lets a config name this binary as "codemode" (the fixture
// configs run `codemode fakemcp`) even when it is not on PATH: a stdio
// command "codemode" that PATH cannot resolve is the running executable.
func resolveSelf(cfg *config.Config) {
	for name, s := range cfg.Servers {
		if s.Transport != config.TransportStdio || s.Command != "codemode" {
			continue
		}
		if _, err := exec.LookPath(s.Command); err == nil {
			continue
		}
		if exe, err := os.Executable(); err == nil {
			s.Command = exe
			cfg.Servers[name] = s
		}
	}
}
