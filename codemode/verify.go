package codemode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// VerifyOptions configures Verify.
type VerifyOptions struct {
	// Options are the plugin options to verify with (engine, mode, native…).
	Options Options
	// Setup, if set, mounts extra tools (for example the configured MCP
	// servers) into the registry before the checks; its cleanup runs at the
	// end.
	Setup func(reg *tools.Registry, presetKey string) (cleanup func(), err error)
}

// Check is the outcome of one check of [Verify]: Err is nil when it passed.
type Check struct {
	Name string
	Err  error
}

// Verify builds a host with global, preset and agent layers around the real
// registry, assembly and Execute, mounts code mode, and runs the checks of
// the preset's contract (docs/contract.md, "Code mode"). It returns every
// check in order; the run stops early only when nothing further can be
// checked.
func Verify(ctx context.Context, vo VerifyOptions) []Check {
	const presetKey = "codemode"
	var checks []Check
	check := func(name string, err error) { checks = append(checks, Check{name, err}) }
	hostScope := scope.NewHost("host")
	defer hostScope.Dispose()
	reg := tools.New(tools.Options{})
	noop := func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		return tools.ValueResult(map[string]any{"tool": e.Name(), "args": json.RawMessage(e.Arguments())})
	}
	preset := hostScope.Child(scope.KindPreset, presetKey)
	standard := hostScope.Child(scope.KindPreset, "standard")
	register := func(l tools.Layer, name string) {
		if _, err := reg.Register(l, tools.Tool{Name: name, Description: "verify probe " + name, InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`), Handler: noop}); err != nil {
			check("register "+name, err)
		}
	}
	register(tools.PresetLayer(presetKey), "probe_read")           // the preset's own standard tool
	register(tools.GlobalLayer(), "probe_global_bundle")           // a profile-level bundle
	register(tools.GlobalLayer(), "mcp__probe__lookup")            // an MCP tool
	register(tools.AgentLayer("verify-agent"), "probe_team_send")  // an agent-layer tool
	register(tools.GlobalLayer(), "probe_unowned_native")          // unowned, kept native by option
	register(tools.PresetLayer("standard"), "probe_standard_read") // another preset's tool
	if vo.Setup != nil {
		cleanup, err := vo.Setup(reg, presetKey)
		check("mount configured servers", err)
		if cleanup != nil {
			defer cleanup()
		}
	}
	opts := vo.Options
	opts.Native = append(append([]string(nil), opts.Native...), "probe_unowned_native")
	p, err := Mount(reg, preset, opts)
	if err != nil {
		check("mount code mode", err)
		return checks
	}
	agent, _ := reg.NewAgent(preset, "verify-agent")
	stdAgent, _ := reg.NewAgent(standard, "verify-standard")

	asm, err := reg.Assemble(ctx, agent, tools.AssembleOptions{})
	if err != nil {
		check("assemble", err)
		return checks
	}
	visible := map[string]bool{}
	for _, t := range asm.Tools {
		visible[t.Name] = true
	}
	check("preset tools stay in the request", expectAll(visible, true, "probe_read", ToolCodeRun))
	var hidden []string
	for _, in := range reg.List(agent) {
		if in.Layer.Kind != tools.LayerPreset && in.Name != "probe_unowned_native" {
			hidden = append(hidden, in.Name)
		}
	}
	check("global- and agent-layer tools are masked", expectAll(visible, false, hidden...))
	check("discovery tools are masked", expectAll(visible, false, ToolList, ToolSearch, ToolDescribe, ToolDebug, ToolRaw))
	check("an unowned tool listed as native stays in the request", expectAll(visible, true, "probe_unowned_native"))
	check("the Code Mode section is appended", func() error {
		for _, s := range asm.Sections {
			if s.Name == sectionCodeMode && strings.Contains(s.Text, "code_run") {
				return nil
			}
		}
		return fmt.Errorf("no %q section", sectionCodeMode)
	}())

	direct := reg.Execute(ctx, tools.Input{CallID: "verify_1", Name: "mcp__probe__lookup", Arguments: map[string]any{"q": "x"}, Agent: agent})
	check("the guard denies a direct call to a masked tool with a code_run hint", func() error {
		if !direct.IsError || direct.Err.Code != errs.CodeDenied {
			return fmt.Errorf("got %q, want DENIED", direct.TextOf())
		}
		if !strings.Contains(direct.TextOf(), `tools[\"mcp__probe__lookup\"]`) {
			return fmt.Errorf("hint without the call: %q", direct.TextOf())
		}
		return nil
	}())
	fake := reg.Execute(ctx, tools.Input{CallID: "verify_2:ptc:1", Name: "probe_team_send", Agent: agent})
	check("a call id that only looks nested is still denied", expectCode(fake, errs.CodeDenied))
	unknown := reg.Execute(ctx, tools.Input{CallID: "verify_3", Name: "no_such_tool", Agent: agent})
	check("an unresolvable name gets UNKNOWN_TOOL", expectCode(unknown, errs.CodeUnknownTool))
	native := reg.Execute(ctx, tools.Input{CallID: "verify_4", Name: "probe_read", Agent: agent})
	check("a direct call to a preset tool passes", expectCode(native, ""))

	// Discovery agrees with masking: every masked tool is listed for
	// programs, and every listed tool can be called from a program.
	run := reg.Execute(ctx, tools.Input{CallID: "verify_5", Name: ToolCodeRun, Agent: agent, Arguments: map[string]any{"code": `
const listed = (await tools.code_tools_list({ limit: 500 })).tools.map(t => t.name);
const called = [];
// Only the probes are called: configured tools may have side effects.
for (const name of listed.filter(n => n.startsWith("probe_") || n.startsWith("mcp__probe__"))) {
  try { await tools[name]({}); called.push(name); } catch (e) { called.push(name + ":" + e.code); }
}
return { listed, called };`}})
	check("nested calls pass the guard, and discovery lists exactly what programs can call", func() error {
		if run.IsError {
			return fmt.Errorf("code_run failed: %s", run.TextOf())
		}
		var out struct {
			Value struct{ Listed, Called []string }
		}
		if err := json.Unmarshal(run.Value, &out); err != nil {
			return err
		}
		for _, name := range hidden {
			if !contains(out.Value.Listed, name) {
				return fmt.Errorf("masked tool %s is not discoverable", name)
			}
		}
		if len(out.Value.Called) < 4 {
			return fmt.Errorf("only %d probes were called: %v", len(out.Value.Called), out.Value.Called)
		}
		for _, c := range out.Value.Called {
			if strings.Contains(c, ":DENIED") || strings.Contains(c, ":UNKNOWN_TOOL") {
				return fmt.Errorf("discovery advertised a call that cannot be made: %s", c)
			}
		}
		return nil
	}())

	// A non-code-mode assembly passes through unchanged.
	check("non-code-mode assemblies pass through unchanged", func() error {
		withHook, err := reg.Assemble(ctx, stdAgent, tools.AssembleOptions{})
		if err != nil {
			return err
		}
		p.Close()
		without, err := reg.Assemble(ctx, stdAgent, tools.AssembleOptions{})
		if err != nil {
			return err
		}
		if !reflect.DeepEqual(withHook, without) {
			return fmt.Errorf("the standard preset's assembly changed")
		}
		return nil
	}())

	// Host-mounted fallback: the ownership rule switches off with one warning.
	check("mounted at host level, the fallback warns exactly once", func() error {
		var buf bytes.Buffer
		var warns atomic.Int32
		lg := slog.New(slog.NewTextHandler(&countWriter{w: &buf, n: &warns}, &slog.HandlerOptions{Level: slog.LevelWarn}))
		h2 := scope.NewHost("host")
		defer h2.Dispose()
		reg2 := tools.New(tools.Options{})
		o2 := vo.Options
		o2.Logger = lg
		o2.Runtime = p.rt
		p2, err := Mount(reg2, h2, o2)
		if err != nil {
			return err
		}
		a2, _ := reg2.NewAgent(h2, "fallback")
		for range 3 {
			if _, err := reg2.Assemble(ctx, a2, tools.AssembleOptions{}); err != nil {
				return err
			}
		}
		p2.Close()
		if n := warns.Load(); n != 1 {
			return fmt.Errorf("got %d warnings, want 1: %s", n, buf.String())
		}
		return nil
	}())
	return checks
}

type countWriter struct {
	w io.Writer
	n *atomic.Int32
}

func (c *countWriter) Write(b []byte) (int, error) { c.n.Add(1); return c.w.Write(b) }

func expectAll(set map[string]bool, want bool, names ...string) error {
	for _, n := range names {
		if set[n] != want {
			if want {
				return fmt.Errorf("%s is missing", n)
			}
			return fmt.Errorf("%s is visible", n)
		}
	}
	return nil
}

func expectCode(r *tools.Result, code errs.Code) error {
	got := errs.Code("")
	if r.Err != nil {
		got = r.Err.Code
	}
	if got != code {
		return fmt.Errorf("got %q (%s), want %q", got, r.TextOf(), code)
	}
	return nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
