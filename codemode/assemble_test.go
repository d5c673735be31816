package codemode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/dev/golden"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
	"golang.org/x/tools/txtar"
)

func noop(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
	return tools.ValueResult(map[string]any{"tool": e.Name(), "args": json.RawMessage(e.Arguments())})
}

func mustRegister(t testing.TB, reg *tools.Registry, l tools.Layer, name, desc string) {
	t.Helper()
	if _, err := reg.Register(l, tools.Tool{Name: name, Description: desc, Handler: noop,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}); err != nil {
		t.Fatal(err)
	}
}

// world is a host with tools in every layer: the fixture of the assembly
// goldens and the guard tests.
type world struct {
	host   *testHost
	preset *scope.Scope
	std    *scope.Scope
	agent  *tools.Agent
	stdAg  *tools.Agent
	plugin *Plugin
	logs   *bytes.Buffer
}

func newWorld(t testing.TB, hostMounted bool, opts Options) *world {
	t.Helper()
	w := &world{host: newTestHost(), logs: &bytes.Buffer{}}
	t.Cleanup(func() { w.host.Close() })
	reg := w.host.Registry
	w.preset = w.host.Preset("codemode")
	w.std = w.host.Preset("standard")
	mustRegister(t, reg, tools.PresetLayer("codemode"), "read", "Read a file.")
	mustRegister(t, reg, tools.PresetLayer("codemode"), "write", "Write a file.")
	mustRegister(t, reg, tools.PresetLayer("standard"), "read", "Read a file.")
	mustRegister(t, reg, tools.GlobalLayer(), "mcp__fake__ticker", "Quote for a ticker symbol.")
	mustRegister(t, reg, tools.GlobalLayer(), "mcp__fake__echo", "Echo text.")
	mustRegister(t, reg, tools.GlobalLayer(), "profile_bundle", "A profile-level bundle tool.")
	mustRegister(t, reg, tools.AgentLayer("agent-1"), "team_send", "Send a message to a teammate.")
	mustRegister(t, reg, tools.AgentLayer("std-1"), "std_team_send", "Send a message (standard agent).")
	if _, err := reg.AddSection(tools.GlobalLayer(), tools.Section{Name: "intro", Text: "You are a helpful agent."}); err != nil {
		t.Fatal(err)
	}
	opts.Logger = slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: func(g []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	parent := w.preset
	if hostMounted {
		parent = w.host.Scope
	}
	p, err := Mount(w.host.Registry, parent, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.plugin = p
	w.agent, _ = w.host.NewAgent(w.preset, "agent-1")
	w.stdAg, _ = w.host.NewAgent(w.std, "std-1")
	return w
}

func render(a *tools.Assembly) string {
	var b strings.Builder
	b.WriteString("tools:\n")
	for _, t := range a.Tools {
		fmt.Fprintf(&b, "  %s\n", t.Name)
		if t.Name == ToolCodeRun {
			fmt.Fprintf(&b, "  description:\n%s\n", indentText(indentText(t.Description)))
		}
	}
	for _, s := range a.Sections {
		fmt.Fprintf(&b, "section %s:\n%s\n", s.Name, indentText(s.Text))
	}
	for _, c := range a.Contexts {
		fmt.Fprintf(&b, "context %s: %s\n", c.Name, c.Text)
	}
	return b.String()
}

func indentText(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func TestAssemblyGolden(t *testing.T) {
	ctx := context.Background()
	var files []txtar.File
	add := func(name string, a *tools.Assembly, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, txtar.File{Name: name, Data: []byte(render(a))})
	}

	w := newWorld(t, false, Options{})
	a, err := w.host.Registry.Assemble(ctx, w.stdAg, tools.AssembleOptions{})
	add("standard-preset", a, err)
	// The standard preset's assembly is byte-identical with and without the
	// plugin.
	before := render(a)

	a, err = w.host.Registry.Assemble(ctx, w.agent, tools.AssembleOptions{})
	add("code-mode-preset", a, err)

	rm, err := w.host.Registry.AddSection(tools.PresetLayer("codemode"), tools.Section{Name: "tools:sdk", Text: "SDK docs that code mode replaces."})
	if err != nil {
		t.Fatal(err)
	}
	a, err = w.host.Registry.Assemble(ctx, w.agent, tools.AssembleOptions{})
	add("tools-sdk-replaced", a, err)
	rm()

	// Another plugin's hook adds a tool that no layer holds: the preset
	// does not own it, but it is not a global- or agent-layer tool either,
	// so it stays (and an mcp__ name added that way is still masked).
	removeHook := w.host.Registry.OnAssemble(func(ctx context.Context, agent *tools.Agent, next func() (*tools.Assembly, error)) (*tools.Assembly, error) {
		a, err := next()
		if err == nil {
			a.Tools = append(a.Tools, tools.WireTool{Name: "hook_added_tool", Description: "Added by another plugin's hook.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				tools.WireTool{Name: "mcp__hook__added", Description: "An MCP-named tool a hook added.", InputSchema: json.RawMessage(`{"type":"object"}`)})
		}
		return a, err
	})
	a, err = w.host.Registry.Assemble(ctx, w.agent, tools.AssembleOptions{})
	add("hook-added-tool-stays", a, err)
	removeHook()

	w.plugin.Close()
	a, _ = w.host.Registry.Assemble(ctx, w.stdAg, tools.AssembleOptions{})
	if got := render(a); got != before {
		t.Errorf("standard assembly changed with the plugin mounted:\n%s\nvs\n%s", before, got)
	}

	hw := newWorld(t, true, Options{})
	for range 3 {
		a, err = hw.host.Registry.Assemble(ctx, hw.agent, tools.AssembleOptions{})
	}
	add("host-mounted-fallback", a, err)
	files = append(files, txtar.File{Name: "host-mounted-fallback.log", Data: hw.logs.Bytes()})
	golden.Check(t, "testdata/assemble.txtar", "Assemblies of docs/contract.md#code-mode; regenerate with go test ./codemode -run TestAssemblyGolden -update\n", files)
}

func TestGuard(t *testing.T) {
	w := newWorld(t, false, Options{})
	reg := w.host.Registry
	ctx := context.Background()
	tests := []struct {
		name     string
		in       tools.Input
		wantCode errs.Code
		wantText string
	}{
		{"direct call to a masked MCP tool", tools.Input{CallID: "c1", Name: "mcp__fake__ticker", Arguments: map[string]any{"q": "AAPL"}, Agent: w.agent}, errs.CodeDenied, `await tools[\"mcp__fake__ticker\"]({\"q\":\"AAPL\"})`},
		{"direct call to an agent-layer tool", tools.Input{CallID: "c2", Name: "team_send", Agent: w.agent}, errs.CodeDenied, "only inside code_run"},
		{"direct call to a discovery tool", tools.Input{CallID: "c3", Name: ToolSearch, Arguments: map[string]any{"query": "x"}, Agent: w.agent}, errs.CodeDenied, "only inside code_run"},
		{"a call id that only looks nested", tools.Input{CallID: "c4:ptc:1", Name: "profile_bundle", Agent: w.agent}, errs.CodeDenied, "only inside code_run"},
		{"unknown name", tools.Input{CallID: "c5", Name: "mcp__fake__tickr", Agent: w.agent}, errs.CodeUnknownTool, `did you mean "mcp__fake__ticker"`},
		{"an owned tool passes", tools.Input{CallID: "c6", Name: "read", Agent: w.agent}, "", ""},
		{"another preset's agent is not guarded", tools.Input{CallID: "c7", Name: "mcp__fake__ticker", Agent: w.stdAg}, "", ""},
	}
	for _, tt := range tests {
		res := reg.Execute(ctx, tt.in)
		got := errs.Code("")
		if res.Err != nil {
			got = res.Err.Code
		}
		if got != tt.wantCode || !strings.Contains(res.TextOf(), tt.wantText) {
			t.Errorf("%s: got %s %q, want %s containing %q", tt.name, got, res.TextOf(), tt.wantCode, tt.wantText)
		}
	}
}

// TestGuardHintRuns checks that the hint's program, run as code_run, makes
// the call the model wanted.
func TestGuardHintRuns(t *testing.T) {
	w := newWorld(t, false, Options{})
	reg := w.host.Registry
	ctx := context.Background()
	res := reg.Execute(ctx, tools.Input{CallID: "c1", Name: "mcp__fake__ticker", Arguments: map[string]any{"q": "AAPL"}, Agent: w.agent})
	text := res.TextOf()
	i := strings.Index(text, `{"code":`)
	if i < 0 {
		t.Fatalf("no code_run arguments in the hint %q", text)
	}
	var args map[string]any
	if err := json.NewDecoder(strings.NewReader(text[i:])).Decode(&args); err != nil {
		t.Fatalf("hint arguments are not JSON: %v", err)
	}
	run := reg.Execute(ctx, tools.Input{CallID: "c2", Name: ToolCodeRun, Arguments: args, Agent: w.agent})
	if run.IsError {
		t.Fatalf("the hint's program failed: %s", run.TextOf())
	}
	if !strings.Contains(string(run.Value), `"tool":"mcp__fake__ticker"`) || !strings.Contains(string(run.Value), `"q":"AAPL"`) {
		t.Fatalf("got %s, want the ticker's result", run.Value)
	}
}
