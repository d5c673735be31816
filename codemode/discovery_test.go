package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/tokens"
	"github.com/codemode/codemode/tools"
	"github.com/evanw/esbuild/pkg/api"
)

func codeRun(t testing.TB, w *world, agent *tools.Agent, code string) *tools.Result {
	t.Helper()
	return w.host.Registry.Execute(context.Background(), tools.Input{CallID: "run_" + fmt.Sprint(len(code)), Name: ToolCodeRun, Arguments: map[string]any{"code": code}, Agent: agent})
}

func value(t testing.TB, res *tools.Result) any {
	t.Helper()
	if res.IsError {
		t.Fatalf("code_run failed: %s", res.TextOf())
	}
	var out struct{ Value any }
	if err := json.Unmarshal(res.Value, &out); err != nil {
		t.Fatal(err)
	}
	return out.Value
}

// The seed's acceptance line: a program that searches for 'ticker' and
// calls the hit returns its result.
func TestProgramDiscoversAndCallsHiddenTool(t *testing.T) {
	w := newWorld(t, false, Options{})
	res := codeRun(t, w, w.agent, `
const { hits } = await tools.code_tools_search({ query: "ticker" });
const name = hits[0].name;
const quote = await tools[name]({ q: "AAPL" });
return { name, signature: hits[0].signature, quote };`)
	got, _ := json.Marshal(value(t, res))
	want := `{"name":"mcp__fake__ticker","quote":{"args":{"q":"AAPL"},"tool":"mcp__fake__ticker"},"signature":"await tools[\"mcp__fake__ticker\"]({ q?: string })"}`
	if string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestDiscoveryListsOnlyCallableTools(t *testing.T) {
	w := newWorld(t, false, Options{})
	res := codeRun(t, w, w.agent, `return (await tools.code_tools_list({})).tools.map(t => t.name);`)
	got, _ := json.Marshal(value(t, res))
	// No other preset's or agent's tools, no code-mode tools.
	want := `["read","write","mcp__fake__ticker","mcp__fake__echo","profile_bundle","team_send"]`
	if string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	res = codeRun(t, w, w.agent, `return await tools.code_tools_list({ server: "fake", limit: 1, offset: 1 });`)
	got, _ = json.Marshal(value(t, res))
	if want := `{"offset":1,"tools":[{"description":"Echo text.","name":"mcp__fake__echo","server":"fake"}],"total":2}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestDescribeUnknown(t *testing.T) {
	w := newWorld(t, false, Options{})
	res := codeRun(t, w, w.agent, `try { await tools.code_tools_describe({ names: ["mcp__fake__tikcer"] }) } catch (e) { return e.code + ": " + e.message }`)
	if got := value(t, res); !strings.Contains(fmt.Sprint(got), "UNKNOWN_TOOL") || !strings.Contains(fmt.Sprint(got), "mcp__fake__ticker") {
		t.Fatalf("got %v", got)
	}
}

func loadCorpus(t testing.TB) []tools.Info {
	t.Helper()
	b, err := os.ReadFile("testdata/realworld_tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	infos := make([]tools.Info, len(raw))
	for i, r := range raw {
		infos[i] = tools.Info{Name: r.Name, Description: r.Description, InputSchema: r.InputSchema, OutputSchema: r.OutputSchema}
	}
	return infos
}

// TestDeclarationsAreValidTypeScript runs every generated declaration
// through esbuild's TypeScript parser.
func TestDeclarationsAreValidTypeScript(t *testing.T) {
	infos := loadCorpus(t)
	infos = append(infos,
		tools.Info{Name: "weird-name.with dots", Description: "ends */ here", InputSchema: json.RawMessage(`{"type":"object","properties":{"a-b":{"type":["string","null"]},"0x":{"enum":[1,"two",null,true]}},"required":["a-b"]}`)},
		tools.Info{Name: "no_schema", InputSchema: json.RawMessage(`{}`)},
		tools.Info{Name: "bad_schema", InputSchema: json.RawMessage(`not json`)},
		tools.Info{Name: "recursive", InputSchema: json.RawMessage(`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}},"value":{"const":"x"}}}}}`)},
		tools.Info{Name: "self_ref", InputSchema: json.RawMessage(`{"type":"object","properties":{"again":{"$ref":"#"}}}`)},
	)
	for _, in := range infos {
		decl := Declarations([]tools.Info{in})
		res := api.Transform(decl, api.TransformOptions{Loader: api.LoaderTS})
		if len(res.Errors) > 0 {
			t.Errorf("%s: esbuild: %s at %d:%d\n%s", in.Name, res.Errors[0].Text, res.Errors[0].Location.Line, res.Errors[0].Location.Column, decl)
		}
	}
	all := Declarations(infos)
	if res := api.Transform(all, api.TransformOptions{Loader: api.LoaderTS}); len(res.Errors) > 0 {
		t.Errorf("all declarations together: %s", res.Errors[0].Text)
	}
	for _, want := range []string{`"weird-name.with dots"(args: WeirdNameWithDotsArgs)`, `"a-b": string | null;`, `ends *\/ here`, `await tools["weird-name.with dots"]({ "a-b": /* a-b */ undefined })`} {
		if !strings.Contains(all, want) {
			t.Errorf("declarations lack %q", want)
		}
	}
}

func TestSearchRanking(t *testing.T) {
	infos := loadCorpus(t)
	tests := []struct{ query, want string }{
		{"create issue", "mcp__github__create_issue"},
		{"read file", "mcp__filesystem__read_file"},
		{"screenshot", "screenshot"},
		{"sql query", "query"},
	}
	for _, tt := range tests {
		hits := search(infos, tt.query, 3)
		if len(hits) == 0 || !strings.Contains(infos[hits[0].index].Name, tt.want) {
			var names []string
			for _, h := range hits {
				names = append(names, infos[h.index].Name)
			}
			t.Errorf("search(%q): got %v, want %q first", tt.query, names, tt.want)
		}
	}
}

// promptTokens measures, in o200k_base tokens, what a model is given for
// infos: the plain tool list (every tool with its schemas, as an MCP
// client lists them) and code mode's (the assembled tool list and its
// sections), and the catalog's share of tools shown with signatures.
func promptTokens(t testing.TB, infos []tools.Info, opts Options) (plain, codeMode int, cat Catalog) {
	t.Helper()
	h := newTestHost()
	defer h.Close()
	preset := h.Preset("codemode")
	for _, in := range infos {
		if _, err := h.Registry.Register(tools.GlobalLayer(), tools.Tool{Name: in.Name, Description: in.Description, InputSchema: in.InputSchema, OutputSchema: in.OutputSchema, Handler: noop}); err != nil {
			t.Fatal(err)
		}
	}
	agent, _ := h.NewAgent(preset, "a")
	size := func(a *tools.Assembly) int {
		n := 0
		for _, w := range a.Tools {
			b, _ := json.Marshal(map[string]any{"name": w.Name, "description": w.Description, "inputSchema": w.InputSchema, "outputSchema": w.OutputSchema})
			n += tokens.Count(string(b))
		}
		for _, s := range a.Sections {
			n += tokens.Count(s.Text)
		}
		return n
	}
	before, _ := h.Registry.Assemble(context.Background(), agent, tools.AssembleOptions{})
	p, err := Mount(h.Registry, preset, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	after, _ := h.Registry.Assemble(context.Background(), agent, tools.AssembleOptions{})
	return size(before), size(after), p.Catalog(agent)
}

func syntheticTools(n int) []tools.Info {
	out := make([]tools.Info, n)
	for i := range out {
		out[i] = tools.Info{
			Name:        fmt.Sprintf("mcp__svc%02d__operation_%03d", i%25, i),
			Description: fmt.Sprintf("Performs operation %d on the service's resources. Returns the updated resource with its metadata, or an error when the resource does not exist.", i),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string","description":"Resource id."},"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Page size."},"mode":{"type":"string","enum":["fast","safe","dry-run"]},"tags":{"type":"array","items":{"type":"string"}},"filter_%d":{"type":"object","properties":{"field":{"type":"string"},"value":{"type":"string"}}}},"required":["id"]}`, i)),
		}
	}
	return out
}

var fakeTools = []tools.Info{
	{Name: "mcp__fake__ticker", Description: "Get a deterministic quote for a ticker symbol.", InputSchema: json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string"}},"required":["symbol"],"additionalProperties":false}`), OutputSchema: json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string"},"price":{"type":"number"},"currency":{"type":"string"}}}`)},
	{Name: "mcp__fake__echo", Description: "Echo the text back.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)},
	{Name: "mcp__fake__slow", Description: "Sleep for ms milliseconds, honouring cancellation.", InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"number"}},"required":["ms"]}`)},
}

// TestPromptTokens: within the default budget every tool of a small and a
// 36-tool setup keeps its signature; at 500 tools code mode stays bounded
// by the budget. The figures are logged; `codemode prompt` prints them
// for a real configuration.
func TestPromptTokens(t *testing.T) {
	tests := []struct {
		name           string
		infos          []tools.Info
		minShare       float64 // of tools with their signature shown
		maxCodeVsPlain float64 // code mode's tokens over the plain list's
	}{
		{"3 fake tools", fakeTools, 1, 4}, // three small tools: code mode costs more, and says more
		{"36 real-shaped tools", loadCorpus(t), 1, 0.5},
		{"500 synthetic tools", syntheticTools(500), 0.05, 0.06},
	}
	for _, tt := range tests {
		plain, cm, cat := promptTokens(t, tt.infos, Options{})
		share := float64(cat.Signatures) / float64(cat.Tools)
		t.Logf("%-22s plain tool list %6d tokens, code mode %5d tokens (%5.1f%%); catalog %4d of %d tokens; signatures %3d of %3d (%3.0f%%)",
			tt.name, plain, cm, 100*float64(cm)/float64(plain), cat.Tokens, cat.Budget, cat.Signatures, cat.Tools, 100*share)
		if cat.Tokens > cat.Budget {
			t.Errorf("%s: catalog of %d tokens, over its budget of %d", tt.name, cat.Tokens, cat.Budget)
		}
		if share < tt.minShare {
			t.Errorf("%s: %d of %d signatures shown, want at least %.0f%%", tt.name, cat.Signatures, cat.Tools, 100*tt.minShare)
		}
		if r := float64(cm) / float64(plain); r > tt.maxCodeVsPlain {
			t.Errorf("%s: code mode costs %.2f× the plain list, want at most %.2f×", tt.name, r, tt.maxCodeVsPlain)
		}
	}
}
