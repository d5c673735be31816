package codemode

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
	"github.com/evanw/esbuild/pkg/api"
)

// The tests of what the model sees and hears back (issue 12): errors that
// teach, results shaped as declared, the reset line, the raw call, the
// catalog's server states.

// engineNames are the engines available here: goja always, wazero when
// its artifact is fetched (CI requires it).
func engineNames(t *testing.T) []string {
	t.Helper()
	names := []string{runtime.EngineGoja}
	rt, err := runtime.New(runtime.Options{Engine: runtime.EngineWazero})
	if err != nil {
		if os.Getenv("CODEMODE_REQUIRE_WAZERO") != "" {
			t.Fatal(err)
		}
		t.Logf("wazero skipped: %v", err)
		return names
	}
	rt.Close()
	return append(names, runtime.EngineWazero)
}

// modelHost is a code-mode host with tools shaped like an MCP server's.
type modelHost struct {
	host   *testHost
	preset string
	plugin *Plugin
	agent  *tools.Agent
}

func newModelHost(t *testing.T, opts Options) *modelHost {
	t.Helper()
	h := &modelHost{host: newTestHost(), preset: "codemode"}
	t.Cleanup(func() { h.host.Close() })
	reg := h.host.Registry
	register := func(tl tools.Tool) {
		t.Helper()
		if _, err := reg.Register(tools.GlobalLayer(), tl); err != nil {
			t.Fatal(err)
		}
	}
	register(tools.Tool{Name: "mcp__fake__ticker", Description: "Look up a ticker symbol's price.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string","minLength":1}},"required":["symbol"],"additionalProperties":false}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string"},"price":{"type":"number"}},"required":["symbol","price"]}`),
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			var a struct{ Symbol string }
			json.Unmarshal(e.Arguments(), &a)
			return tools.ValueResult(map[string]any{"symbol": a.Symbol, "price": 12.5})
		}})
	// A server that answers JSON as text, without structured content or an
	// output schema, as most MCP servers do.
	register(tools.Tool{Name: "mcp__notes__search", Description: "Search the notes.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			return tools.TextResult(`{"hits": [{"id": "n1", "title": "groceries"}], "total": 1}`), nil
		}})
	register(tools.Tool{Name: "mcp__notes__chart", Description: "Draw the notes as a chart.",
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			return &tools.Result{Content: []tools.Content{tools.Text{Text: "chart"}, tools.Image{Data: []byte("png"), MIMEType: "image/png"}}}, nil
		}})
	register(tools.Tool{Name: "mcp__notes__fail", Description: "Always fails.",
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			return nil, errs.Errorf(errs.CodeToolError, "the notes are locked")
		}})
	preset := h.host.Preset(h.preset)
	p, err := Mount(reg, preset, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.plugin = p
	h.agent, _ = h.host.NewAgent(preset, "agent-1")
	return h
}

func (h *modelHost) run(t *testing.T, agent *tools.Agent, args map[string]any) *tools.Result {
	t.Helper()
	return h.host.Registry.Execute(context.Background(), tools.Input{CallID: "run", Name: ToolCodeRun, Arguments: args, Agent: agent})
}

// TestErrorsTeach: a failed nested call's message shows what to call
// instead, in the same words on every engine.
func TestErrorsTeach(t *testing.T) {
	down := []ServerState{{Name: "fake", State: "ready"}, {Name: "github", State: "restarting", Err: "connecting: EOF; stderr: Error: GITHUB_TOKEN environment variable is required"}}
	tests := []struct {
		name     string
		code     string
		wantCode errs.Code
		want     string
	}{
		{"invalid arguments name the path and show the signature", `await tools.mcp__fake__ticker({ sym: "A" })`, errs.CodeInvalidArguments,
			"invalid arguments for mcp__fake__ticker at arguments: unexpected additional properties [\"sym\"]\nexpected: tools.mcp__fake__ticker(args: {symbol: string}): Promise<{symbol: string; price: number}>"},
		{"an unknown tool keeps its suggestions and shows the best one", `await tools.mcp__fake__tickr({ symbol: "A" })`, errs.CodeUnknownTool,
			"unknown tool \"mcp__fake__tickr\"; did you mean \"mcp__fake__ticker\"?\nclosest: tools.mcp__fake__ticker(args: {symbol: string}): Promise<{symbol: string; price: number}>"},
		{"an unknown tool with no close name says how to list them", `await tools.launch_rockets({})`, errs.CodeUnknownTool,
			"unknown tool \"launch_rockets\"\nList the callable tools with await tools.code_tools_list({}), or search them with await tools.code_tools_search({ query: \"…\" })."},
		{"a tool of a server that failed to start is unavailable, with the server's error", `await tools.mcp__github__get_me({})`, errs.CodeUpstreamUnavailable,
			"upstream server \"github\" is restarting and has not listed its tools (connecting: EOF; stderr: Error: GITHUB_TOKEN environment variable is required); mcp__github__get_me cannot be called until it starts"},
	}
	got := map[string]map[string]string{} // test → engine → message
	for _, engine := range engineNames(t) {
		h := newModelHost(t, Options{Engine: engine, Servers: func() []ServerState { return down }})
		for _, tt := range tests {
			res := h.run(t, h.agent, map[string]any{"code": "try { " + tt.code + " } catch (e) { return { code: e.code, message: e.message } }"})
			var out struct {
				Value struct{ Code, Message string }
			}
			if err := json.Unmarshal(res.Value, &out); err != nil || res.IsError {
				t.Fatalf("%s on %s: %s", tt.name, engine, res.TextOf())
			}
			if out.Value.Code != string(tt.wantCode) || out.Value.Message != tt.want {
				t.Errorf("%s on %s:\ngot  %s: %s\nwant %s: %s", tt.name, engine, out.Value.Code, out.Value.Message, tt.wantCode, tt.want)
			}
			if got[tt.name] == nil {
				got[tt.name] = map[string]string{}
			}
			got[tt.name][engine] = out.Value.Message
		}
	}
	for name, byEngine := range got {
		if len(byEngine) == 2 && byEngine[runtime.EngineGoja] != byEngine[runtime.EngineWazero] {
			t.Errorf("%s: the engines disagree:\ngoja:   %s\nwazero: %s", name, byEngine[runtime.EngineGoja], byEngine[runtime.EngineWazero])
		}
	}
}

// TestResultsShapedAsDeclared: JSON text arrives parsed and the
// declaration says so; an image makes the MCP shape; the raw call returns
// the whole result, failures included.
func TestResultsShapedAsDeclared(t *testing.T) {
	h := newModelHost(t, Options{})
	res := h.run(t, h.agent, map[string]any{"code": `
const found = await tools.mcp__notes__search({ query: "g" });
const chart = await tools.mcp__notes__chart({});
const raw = await tools.code_tools_raw({ name: "mcp__notes__search", args: { query: "g" } });
const failed = await tools.code_tools_raw({ name: "mcp__notes__fail" });
const decl = (await tools.code_tools_describe({ names: ["mcp__notes__search"] })).declarations;
return { title: found.hits[0].title, chart, raw, failed, declared: decl.includes("type McpNotesSearchResult = unknown /* JSON text, parsed */;") };`})
	if res.IsError {
		t.Fatal(res.TextOf())
	}
	var out struct{ Value any }
	json.Unmarshal(res.Value, &out)
	got, _ := json.Marshal(out.Value) // keys sorted
	want := `{"chart":{"content":[{"text":"chart","type":"text"},{"data":"cG5n","mimeType":"image/png","type":"image"}]},"declared":true,` +
		`"failed":{"content":[{"text":"Error: the notes are locked","type":"text"}],"error":{"code":"TOOL_ERROR","message":"the notes are locked"},"isError":true},` +
		`"raw":{"content":[{"text":"{\"hits\": [{\"id\": \"n1\", \"title\": \"groceries\"}], \"total\": 1}","type":"text"}],"isError":false},"title":"groceries"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// The raw call is masked from the model like the other discovery tools.
	direct := h.host.Registry.Execute(context.Background(), tools.Input{CallID: "d", Name: ToolRaw, Arguments: map[string]any{"name": "mcp__notes__search"}, Agent: h.agent})
	if direct.Err == nil || direct.Err.Code != errs.CodeDenied {
		t.Errorf("a direct call to %s: got %q, want DENIED", ToolRaw, direct.TextOf())
	}
}

// TestResetLine: in persistent mode, after each cause of a reset the next
// result starts with one line saying why, and code_debug lists only the
// names of the environment as it is.
func TestResetLine(t *testing.T) {
	const define = "const data = [1, 2, 3]; function helper() {}"
	const probe = "const dbg = await tools.code_debug({}); return { data: typeof data, globals: dbg.globals }"
	type cause struct {
		name    string
		engines []string // empty: every engine
		opts    Options
		trigger func(t *testing.T, h *modelHost)
		reset   bool // the probe itself asks for the reset
		want    string
	}
	fail := func(code string, timeoutMs int) func(t *testing.T, h *modelHost) {
		return func(t *testing.T, h *modelHost) {
			args := map[string]any{"code": code}
			if timeoutMs > 0 {
				args["timeoutMs"] = timeoutMs
			}
			res := h.run(t, h.agent, args)
			if !res.IsError {
				t.Fatalf("the trigger did not fail: %s", res.TextOf())
			}
			if timeoutMs == 0 && res.Err.Code == errs.CodeTimeout {
				// goja's heap watchdog needs the GC to keep up; on a starved
				// machine the deadline can come first.
				t.Skipf("the trigger timed out instead: %s", res.TextOf())
			}
		}
	}
	causes := []cause{
		{name: "reset requested", reset: true, want: "[environment reset: as you asked (reset: true); top-level names from earlier programs are gone]"},
		{name: "timeout", engines: []string{runtime.EngineGoja}, trigger: fail("for (;;) {}", 100),
			want: "[environment reset: your previous program timed out, and the engine had to discard its environment to stop it; top-level names from earlier programs are gone]"},
		{name: "memory", engines: []string{runtime.EngineGoja}, opts: Options{Limits: runtime.Limits{MemoryBytes: 32 << 20}}, trigger: fail(`const a = []; for (;;) a.push("x".repeat(1 << 20) + a.length)`, 0),
			want: "[environment reset: your previous program exceeded the memory budget; top-level names from earlier programs are gone]"},
		{name: "stack overflow", engines: []string{runtime.EngineWazero}, trigger: fail("function f() { return f() }\nf()", 0),
			want: "[environment reset: your previous program overflowed the stack, and the engine discarded its environment; top-level names from earlier programs are gone]"},
		{name: "idle", opts: Options{IdleTTL: 20 * time.Millisecond}, trigger: func(t *testing.T, h *modelHost) {
			waitFor(t, "the idle environment's release", func() bool { return h.plugin.Environments().Len() == 0 })
		}, want: "[environment reset: it was idle for more than 20ms; top-level names from earlier programs are gone]"},
		{name: "evicted", opts: Options{MaxEnvironments: 1}, trigger: func(t *testing.T, h *modelHost) {
			other, _ := h.host.NewAgent(h.host.Preset(h.preset), "agent-2")
			if res := h.run(t, other, map[string]any{"code": "return 1"}); res.IsError {
				t.Fatal(res.TextOf())
			}
		}, want: "[environment reset: it was evicted to make room (at most 1 environments are kept, least recently used first); top-level names from earlier programs are gone]"},
		{name: "memory budget", opts: Options{Limits: runtime.Limits{MemoryBytes: 64 << 20}, Governor: runtime.NewGovernor(64 << 20)}, trigger: func(t *testing.T, h *modelHost) {
			// The idle environment holds something, and another agent's
			// program needs 64 MiB of the 64 MiB total: the idle one goes.
			other, _ := h.host.NewAgent(h.host.Preset(h.preset), "agent-2")
			if res := h.run(t, other, map[string]any{"code": "return 1"}); res.IsError {
				t.Fatal(res.TextOf())
			}
		}, want: "[environment reset: it was released to keep the server within its memory budget (idle environments go first, least recently used first); keep less in globals, or retry if a program was refused with OVERLOADED; top-level names from earlier programs are gone]"},
	}
	for _, engine := range engineNames(t) {
		for _, c := range causes {
			if len(c.engines) > 0 && !contains(c.engines, engine) {
				continue
			}
			if c.name == "memory" && raceEnabled {
				t.Logf("%s on %s: skipped under the race detector (goja's heap watchdog is too slow there)", c.name, engine)
				continue
			}
			t.Run(engine+"/"+c.name, func(t *testing.T) {
				opts := c.opts
				opts.Engine, opts.Mode = engine, runtime.ModePersistent
				h := newModelHost(t, opts)
				if res := h.run(t, h.agent, map[string]any{"code": define}); res.IsError {
					t.Fatal(res.TextOf())
				}
				if res := h.run(t, h.agent, map[string]any{"code": "return typeof data"}); strings.HasPrefix(res.TextOf(), "[environment reset") {
					t.Fatalf("a reset line without a reset: %s", res.TextOf())
				}
				if c.trigger != nil {
					c.trigger(t, h)
				}
				args := map[string]any{"code": probe}
				if c.reset {
					args["reset"] = true
				}
				res := h.run(t, h.agent, args)
				if res.IsError {
					t.Fatal(res.TextOf())
				}
				first, rest, _ := strings.Cut(res.TextOf(), "\n")
				if first != c.want {
					t.Errorf("first line:\ngot  %s\nwant %s", first, c.want)
				}
				if want := `{"data":"undefined","globals":[]}`; rest != want {
					t.Errorf("after the reset: got %s, want %s (no stale names)", rest, want)
				}
				var sc struct{ Reset string }
				json.Unmarshal(res.Value, &sc)
				if sc.Reset != c.want {
					t.Errorf("structured reset: got %q", sc.Reset)
				}
				if res := h.run(t, h.agent, map[string]any{"code": "return 1"}); res.TextOf() != "1" {
					t.Errorf("the line is said once: got %q", res.TextOf())
				}
			})
		}
	}
}

// waitFor polls cond until it holds (a background sweeper decides when),
// failing after a few seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestCatalogServerStates: a server that is down stays in the catalog with
// its state and error; one that never listed its tools is listed alone.
func TestCatalogServerStates(t *testing.T) {
	states := []ServerState{
		{Name: "fake", State: "restarting", Err: "connection lost: EOF"},
		{Name: "github", State: "restarting", Err: "connecting: calling \"initialize\": EOF; stderr: Error: GITHUB_TOKEN environment variable is required"},
		{Name: "notes", State: "ready"},
	}
	h := newModelHost(t, Options{Servers: func() []ServerState { return states }})
	text := h.plugin.Catalog(h.agent).Text
	for _, want := range []string{
		"fake: tools.mcp__fake__NAME(args) // unavailable: restarting: connection lost: EOF; calls fail until it is back\n  ticker(args: {symbol: string}): Promise<{symbol: string; price: number}> // Look up a ticker symbol's price.\n",
		"github: tools.mcp__github__NAME(args), 0 tools // unavailable: restarting: connecting: calling \"initialize\": EOF; stderr: Error: GITHUB_TOKEN environment variable is required; its tools are listed once it starts\n",
		"notes: tools.mcp__notes__NAME(args), 3 tools\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("catalog lacks %q:\n%s", want, text)
		}
	}
	// A change of state is a new catalog, without a registry change.
	states[0].State, states[0].Err = "ready", ""
	if text := h.plugin.Catalog(h.agent).Text; strings.Contains(text, "fake: tools.mcp__fake__NAME(args) // unavailable") {
		t.Errorf("the catalog kept a stale state:\n%s", text)
	}
}

// TestCatalogBudget: the catalog never exceeds its budget; tools past it
// are listed by name, or counted, with the call that lists them.
func TestCatalogBudget(t *testing.T) {
	infos := loadCorpus(t)
	count := func(s string) int { return len(strings.Fields(s)) } // any monotone measure will do here
	for _, budget := range []int{60, 150, 400, 800, 5000} {
		c := buildCatalog(infos, nil, budget, count)
		if c.Tokens > budget && c.Signatures > 0 {
			t.Errorf("budget %d: %d tokens with %d signatures", budget, c.Tokens, c.Signatures)
		}
		if c.Tools != len(infos) {
			t.Errorf("budget %d: %d tools, want %d", budget, c.Tools, len(infos))
		}
		mentioned := c.Signatures + countNamed(c.Text)
		if mentioned != len(infos) {
			t.Errorf("budget %d: %d tools accounted for, want %d:\n%s", budget, mentioned, len(infos), c.Text)
		}
	}
	// Every server gets its first tool before any gets its second.
	c := buildCatalog(infos, nil, 1500, count)
	if !strings.Contains(c.Text, "  convert_time(") || !strings.Contains(c.Text, "  create_issue(") {
		t.Errorf("a small and a large server should both keep a signature:\n%s", c.Text)
	}
}

// countNamed counts the tools a catalog lists by name or by count.
func countNamed(text string) int {
	n := 0
	for _, m := range regexp.MustCompile(`(?m)^  (\d+)(?: more)?(?: by name)?: `).FindAllStringSubmatch(text, -1) {
		var k int
		json.Unmarshal([]byte(m[1]), &k)
		n += k
	}
	return n
}

// FuzzSignatureLine: whatever schemas a server sends, a catalog line is a
// valid TypeScript method signature.
func FuzzSignatureLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
		`{"type":"object","properties":{"a-b":{"enum":[1,"x",null]},"c":{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"object","properties":{"d":{"const":true}}}]}}}}`,
		`{"$defs":{"n":{"type":"object","properties":{"c":{"type":"array","items":{"$ref":"#/$defs/n"}}}}},"$ref":"#/$defs/n"}`,
		`{"type":["object","null"],"additionalProperties":{"type":"integer"}}`,
		`{"allOf":[{"type":"object","properties":{"a":{}}},{"type":"object","properties":{"b":{"prefixItems":[{"type":"number"}]}}}]}`,
		`true`, `false`, `[]`, `{"properties":{"":{}}}`, `{"enum":[]}`,
	} {
		f.Add("tool", s, s)
	}
	f.Fuzz(func(t *testing.T, name, in, out string) {
		if !json.Valid([]byte(in)) || !json.Valid([]byte(out)) {
			return
		}
		line := signatureLine(name, tools.Info{InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out)})
		src := "interface T {\n  " + line + ";\n}\n"
		if res := api.Transform(src, api.TransformOptions{Loader: api.LoaderTS}); len(res.Errors) > 0 {
			t.Fatalf("invalid TypeScript for %s / %s: %s\n%s", in, out, res.Errors[0].Text, src)
		}
	})
}
