// Package codemode is the code-mode preset: it mounts code_run and the
// discovery tools into a preset, masks every tool the preset does not own
// from the model's assembly, and guards direct calls to masked tools with a
// self-healing hint (docs/contract.md#code-mode).
//
// # Mounting
//
//	reg := tools.New(tools.Options{})
//	host := scope.NewHost("host")
//	preset := host.Child(scope.KindPreset, "codemode")
//	p, err := codemode.Mount(reg, preset, codemode.Options{})
//	agent, _ := reg.NewAgent(preset, "session-1")
//	asm, _ := reg.Assemble(ctx, agent, tools.AssembleOptions{})
//	// asm.Tools: the preset's own tools plus code_run
//
// Mount under a preset scope. Mounted at host level (no preset scope above
// it), the ownership rule is off: it warns once, and only the name rule
// masks (mcp__*, code_tools_*, code_debug).
package codemode

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// Tool names of the preset.
const (
	ToolCodeRun     = "code_run"
	ToolList        = "code_tools_list"
	ToolSearch      = "code_tools_search"
	ToolDescribe    = "code_tools_describe"
	ToolDebug       = "code_debug"
	ToolRaw         = "code_tools_raw"
	sectionSDK      = "tools:sdk"
	sectionCodeMode = "code-mode"
	provider        = "codemode"
)

// Options configures the preset. A zero field means the default in its
// comment.
type Options struct {
	// Runtime runs programs. If nil, Mount creates one from Engine and
	// Limits, and closes it when the plugin is unloaded.
	Runtime *runtime.Runtime
	// Engine is one of runtime.Engines (used when Runtime is nil). If empty,
	// the runtime's default, wazero: the hard memory and CPU caps are the
	// default.
	Engine string
	// Mode is runtime.ModePerCall or runtime.ModePersistent. If empty,
	// per-call.
	Mode runtime.Mode
	// Limits is the program budget (used when Runtime is nil).
	Limits runtime.Limits
	// Governor bounds the memory of all runs and persistent environments
	// of the process (used when Runtime is nil; see runtime.Governor). If
	// nil, the runtime makes its own with the default budget.
	Governor *runtime.Governor
	// Native lists tools that stay visible to the model even though the
	// preset does not own them.
	Native []string
	// CatalogBudget bounds the tool catalog in code_run's description, in
	// o200k_base tokens (package internal/tokens): tools are shown with
	// their signatures while they fit, the rest by name or by count. If
	// zero, DefaultCatalogBudget.
	CatalogBudget int
	// Servers, if set, reports the upstream MCP servers and their states
	// (cmd wires it to the upstream manager). The catalog lists a server
	// that is not ready as unavailable, with its error, and a program's
	// call to a tool of a server that never listed its tools fails with
	// UPSTREAM_UNAVAILABLE instead of UNKNOWN_TOOL. It is called on every
	// assembly and failed call, from any goroutine, and must be fast.
	Servers func() []ServerState
	// MaxEnvironments and IdleTTL bound persistent environments (see
	// runtime.EnvOptions). Zero means the runtime's defaults.
	MaxEnvironments int
	IdleTTL         time.Duration
	// MaxAbandonedRuns is runtime.Options.MaxAbandonedRuns (used when
	// Runtime is nil).
	MaxAbandonedRuns int
	// TimeZone is runtime.Options.TimeZone (used when Runtime is nil): the
	// programs' time zone; empty is UTC.
	TimeZone string
	// Logger receives the plugin's warnings. If nil, nothing is logged.
	Logger *slog.Logger
	// Observers watch every program code_run runs (telemetry, the run
	// viewer); see [RunObserver]. None by default.
	Observers []RunObserver
}

// Plugin is a mounted code-mode preset. Close (or disposing the scope it
// was mounted under) unloads it: tools, hooks and every persistent
// environment are released.
type Plugin struct {
	reg       *tools.Registry
	opts      Options
	scope     *scope.Scope // the plugin's own scope
	presetKey string       // "" when mounted at host level (ownership rule off)
	layer     tools.Layer
	rt        *runtime.Runtime
	envs      *runtime.Environments
	native    map[string]bool
	log       *slog.Logger
	warnOnce  sync.Once

	mu           sync.Mutex
	debug        map[string]*debugState // by agent id
	bindingCache map[bindingKey]bindingEntry

	catMu    sync.Mutex
	catCache map[string]Catalog // by catalogKey
	tokMemo  tokenMemo
}

// Mount registers the preset in reg under parent (a preset scope, or the
// host scope for the fallback).
func Mount(reg *tools.Registry, parent *scope.Scope, opts Options) (*Plugin, error) {
	switch opts.Mode {
	case "":
		opts.Mode = runtime.ModePerCall
	case runtime.ModePerCall, runtime.ModePersistent:
	default:
		return nil, fmt.Errorf("codemode: unknown mode %q (want one of %q)", opts.Mode, runtime.Modes())
	}
	if opts.CatalogBudget <= 0 {
		opts.CatalogBudget = DefaultCatalogBudget
	}
	p := &Plugin{reg: reg, opts: opts, native: map[string]bool{}, debug: map[string]*debugState{}, bindingCache: map[bindingKey]bindingEntry{}, catCache: map[string]Catalog{}, log: opts.Logger}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	for _, n := range opts.Native {
		p.native[n] = true
	}
	p.scope = parent.Child(scope.KindPlugin, provider)
	if ps := p.scope.Nearest(scope.KindPreset); ps != nil {
		p.presetKey = ps.Label()
		p.layer = tools.PresetLayer(p.presetKey)
	} else {
		p.layer = tools.GlobalLayer()
	}
	fail := func(err error) (*Plugin, error) {
		p.scope.Dispose()
		return nil, err
	}
	p.rt = opts.Runtime
	if p.rt == nil {
		rt, err := runtime.New(runtime.Options{Engine: opts.Engine, Limits: opts.Limits, Logger: opts.Logger, Governor: opts.Governor, MaxAbandonedRuns: opts.MaxAbandonedRuns, TimeZone: opts.TimeZone})
		if err != nil {
			return fail(fmt.Errorf("codemode: %w", err))
		}
		p.rt = rt
		p.scope.Effect(func() { rt.Close() })
	}
	p.envs = p.rt.NewEnvironments(p.scope, runtime.EnvOptions{MaxEnvironments: opts.MaxEnvironments, IdleTTL: opts.IdleTTL})
	for _, t := range p.tools() {
		g, err := p.reg.Register(p.layer, t)
		if err != nil {
			return fail(fmt.Errorf("codemode: %w", err))
		}
		p.scope.Effect(g.Remove)
	}
	p.scope.Effect(p.reg.OnAssemble(p.assemble))
	p.scope.Effect(p.reg.OnGuard(p.guard))
	if p.presetKey == "" {
		p.warnFallback()
	}
	return p, nil
}

// warnFallback logs, once per plugin, that the ownership rule is off.
func (p *Plugin) warnFallback() {
	p.warnOnce.Do(func() {
		p.log.Warn("codemode: mounted at host level (no preset scope): the ownership rule is off; masking by name only (mcp__*, code_tools_*, code_debug)")
	})
}

// Close unloads the plugin. Idempotent.
func (p *Plugin) Close() error { return p.scope.Dispose() }

// Scope is the plugin's scope.
func (p *Plugin) Scope() *scope.Scope { return p.scope }

// PresetKey is the preset the plugin found ("" when host-mounted).
func (p *Plugin) PresetKey() string { return p.presetKey }

// Runtime is the runtime programs run on.
func (p *Plugin) Runtime() *runtime.Runtime { return p.rt }

// Environments are the plugin's persistent environments.
func (p *Plugin) Environments() *runtime.Environments { return p.envs }

// IsPresetTool reports whether name is one of the preset's own tools:
// code_run and the discovery tools.
func IsPresetTool(name string) bool { return isOwnTool(name) }

// isOwnTool reports whether name is one of the preset's own tools.
func isOwnTool(name string) bool {
	switch name {
	case ToolCodeRun, ToolList, ToolSearch, ToolDescribe, ToolDebug, ToolRaw:
		return true
	}
	return false
}

// nameMasked is the name rule: always hidden from the model.
func nameMasked(name string) bool {
	return strings.HasPrefix(name, "mcp__") || strings.HasPrefix(name, "code_tools_") || name == ToolDebug
}

// masked reports whether the model must not see (nor directly call) name in
// a code-mode assembly of this preset for agent: a name the name rule hides,
// or a tool of the global or agent layer (docs/contract.md#code-mode). A
// tool no layer of the agent's view holds (another plugin's assemble hook
// added it) is not the preset's to hide.
func (p *Plugin) masked(name string, agent *tools.Agent) bool {
	if p.native[name] {
		return false
	}
	if nameMasked(name) {
		return true
	}
	if p.presetKey == "" {
		return false // ownership rule off
	}
	if _, held := p.reg.Lookup(name, agent); !held {
		return false
	}
	return !p.reg.Owned(name, p.presetKey)
}

// isCodeModeAgent reports whether agent's view has this plugin's discovery
// tools: they exist only in this preset, so that identifies code-mode
// agents exactly.
func (p *Plugin) isCodeModeAgent(agent *tools.Agent) bool {
	info, ok := p.reg.Lookup(ToolList, agent)
	return ok && info.Layer == p.layer
}

// callable lists the tools a program of agent can call, in catalog order,
// without the preset's own tools.
func (p *Plugin) callable(agent *tools.Agent) []tools.Info {
	var out []tools.Info
	for _, in := range p.reg.List(agent) {
		if isOwnTool(in.Name) || in.Name == tools.ReservedName {
			continue
		}
		out = append(out, in)
	}
	return out
}

type ctxKey int

const progressKey ctxKey = 0

// WithProgress returns a context whose code_run calls report console output
// to fn as it happens (the MCP front turns it into progress notifications).
func WithProgress(ctx context.Context, fn func(level, text string)) context.Context {
	return context.WithValue(ctx, progressKey, fn)
}

func progressFrom(ctx context.Context) func(level, text string) {
	fn, _ := ctx.Value(progressKey).(func(level, text string))
	return fn
}
