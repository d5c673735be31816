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
	"github.com/codemode/codemode/internal/config"
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
		if c.engine != config.EngineGoja && c.engine != config.EngineWazero {
			return nil, "", fmt.Errorf("--engine: %q is not an engine (want goja or wazero)", c.engine)
		}
		cfg.CodeMode.Engine = c.engine
	}
	if c.mode != "" {
		if c.mode != config.ModePerCall && c.mode != config.ModePersistentInMemory {
			return nil, "", fmt.Errorf("--mode: %q is not a mode (want per-call or persistent-in-memory)", c.mode)
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

// pluginOptions maps the codemode section to the preset's options.
func pluginOptions(cfg *config.Config, log *slog.Logger) codemode.Options {
	cm := cfg.CodeMode
	return codemode.Options{
		Engine: cm.Engine,
		Mode:   codemode.Mode(cm.Mode),
		Limits: runtime.Limits{
			Timeout:               cm.Timeout,
			MaxSubcalls:           cm.MaxSubcalls,
			MaxConcurrentSubcalls: cm.MaxConcurrentSubcalls,
			MaxLogBytes:           int(cm.MaxLogBytes),
			MaxResultBytes:        int(cm.MaxResultBytes),
			MaxCodeBytes:          int(cm.MaxCodeBytes),
			MaxNestingDepth:       cm.MaxNestingDepth,
			MemoryBytes:           cm.Memory,
		},
		Native:          cm.Native,
		CatalogBudget:   cm.CatalogBudget,
		MaxEnvironments: cm.MaxEnvironments,
		IdleTTL:         cm.IdleTTL,
		Logger:          log,
	}
}

// app is a mounted code-mode host: the scope tree (host → preset), the
// registry, the upstream servers and the preset.
type app struct {
	host     *scope.Scope
	reg      *tools.Registry
	preset   *scope.Scope
	plugin   *codemode.Plugin
	upstream *upstream.Manager
	log      *slog.Logger
}

func newApp(ctx context.Context, cfg *config.Config, log *slog.Logger) (*app, error) {
	a := &app{log: log}
	a.host = scope.NewHost("host")
	a.reg = tools.New(tools.Options{Logger: log, MaxArgumentBytes: int(cfg.CodeMode.MaxArgumentBytes)})
	a.preset = a.host.Child(scope.KindPreset, presetKey)
	m, err := upstream.Start(ctx, a.reg, cfg.Servers, upstream.Options{Logger: log})
	if err != nil {
		a.host.Dispose()
		return nil, fmt.Errorf("starting MCP servers: %w", err)
	}
	a.upstream = m
	a.plugin, err = codemode.Mount(a.reg, a.preset, pluginOptions(cfg, log))
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
