package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/edge/upstream"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

const presetKey = "codemode"

// configEmbedded is the source loadConfig reports for the embedded default.
const configEmbedded = "embedded default"

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
	fs.StringVar(&c.engine, "engine", "", "JavaScript engine: wazero (default: QuickJS with hard memory and CPU caps) or goja (faster, best-effort memory guard); overrides the config")
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
			cfg, src = config.Default(exe), configEmbedded
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

// fixtureFlags are --record and --replay (run and serve).
type fixtureFlags struct {
	record string
	replay string
}

func (f *fixtureFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.record, "record", "", "record every upstream server's session (initialize, tools, calls) into `DIR`/<server>.txtar, secrets redacted; see docs/fixtures.md")
	fs.StringVar(&f.replay, "replay", "", "serve every configured server from its recording `DIR`/<server>.txtar, in process, instead of starting it")
}

// apply swaps the configured servers for their recordings (--replay) and
// returns the recorder for --record (nil without it). The recorder hides
// the values of every server's env and headers as configured, before any
// swap, and the HTTP front's bearer token. Errors are usage errors.
func (f *fixtureFlags) apply(cfg *config.Config, log *slog.Logger) (*fixture.Recorder, error) {
	secrets := []string{cfg.CodeMode.Token(nil)}
	for _, name := range cfg.ServerNames() {
		s := cfg.Servers[name]
		for _, v := range s.Env {
			secrets = append(secrets, v)
		}
		for _, v := range s.Headers {
			secrets = append(secrets, v)
		}
	}
	if f.replay != "" {
		for _, name := range cfg.ServerNames() {
			path := filepath.Join(f.replay, name+fixture.Ext)
			if _, err := os.Stat(path); err != nil {
				return nil, fmt.Errorf("--replay: no recording of server %q: %w", name, err)
			}
			cfg.Servers[name] = config.Server{Transport: config.TransportFixture, Fixture: path, MaxFrameBytes: cfg.Servers[name].MaxFrameBytes}
		}
	}
	if f.record == "" {
		return nil, nil
	}
	rec, err := fixture.NewRecorder(fixture.RecorderOptions{
		Dir:     f.record,
		Redact:  cfg.CodeMode.RedactRules(),
		Secrets: redact.NewSecrets(secrets...),
		Logger:  log,
	})
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return rec, nil
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
	trail    *audit.Trail      // nil without an audit trail
	recorder *fixture.Recorder // nil unless --record
	obs      *observability    // telemetry and the run viewer
	log      *slog.Logger
}

func newApp(ctx context.Context, cfg *config.Config, log *slog.Logger) (*app, error) {
	return newRecordingApp(ctx, cfg, log, nil)
}

// newRecordingApp is newApp with the upstream sessions recorded by rec (if
// not nil), which the app then owns: Close writes and closes it.
func newRecordingApp(ctx context.Context, cfg *config.Config, log *slog.Logger, rec *fixture.Recorder, opts ...appOption) (*app, error) {
	a := &app{log: log, recorder: rec}
	obs, err := newObservability(ctx, cfg, log, opts)
	if err != nil {
		a.closeRecorder()
		return nil, err
	}
	a.obs = obs
	a.host = scope.NewHost("host")
	if a.policy, err = policy.New(cfg.PolicyOptions(log)); err != nil {
		a.Close()
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
			a.Close()
			return nil, err
		}
		a.reg.Use(a.trail.Middleware())
	}
	a.policy.Install(a.reg)
	obs.hookRegistry(a.reg)
	a.preset = a.host.Child(scope.KindPreset, presetKey)
	uopts := upstream.Options{Logger: log}
	if rec != nil {
		uopts.Recorder = rec
	}
	obs.hookUpstream(&uopts)
	m, err := upstream.Start(ctx, a.reg, cfg.Servers, uopts)
	if err != nil {
		a.Close()
		return nil, fmt.Errorf("starting MCP servers: %w", err)
	}
	a.upstream = m
	popts := cfg.PresetOptions(log)
	popts.Servers = serverStates(m)
	obs.hookPreset(&popts)
	a.plugin, err = codemode.Mount(a.reg, a.preset, popts)
	if err == nil {
		err = obs.observe(a)
	}
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
	a.closeRecorder()
	a.obs.close(a.log)
	if a.trail != nil {
		_ = a.trail.Close()
	}
}

// closeRecorder writes the recordings after the last call has returned.
func (a *app) closeRecorder() {
	if a.recorder != nil {
		if err := a.recorder.Close(); err != nil {
			a.log.Error("recording: " + err.Error())
		}
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
