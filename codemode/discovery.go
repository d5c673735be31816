package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/codemode/codemode/ptc"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

func (p *Plugin) tools() []tools.Tool {
	return []tools.Tool{
		{Name: ToolCodeRun, Description: "", InputSchema: codeRunSchema, OutputSchema: codeRunOutputSchema, Handler: p.codeRun,
			// Per-call runs end with their context (the program's clock, then the
			// engine's grace); a persistent owner's run may first wait, without
			// its context, for the owner's run ahead of it.
			BoundsItself: p.opts.Mode != runtime.ModePersistent},
		{Name: ToolList, Description: "List the tools a program can call, with one-line descriptions, paged.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"prefix":{"type":"string","description":"Only names starting with this."},"server":{"type":"string","description":"Only tools of this MCP server."},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":1,"maximum":500}},"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"total":{"type":"integer"},"offset":{"type":"integer"},"tools":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"server":{"type":"string"},"description":{"type":"string"}},"required":["name"]}}},"required":["total","offset","tools"]}`),
			Handler:      p.listTool},
		{Name: ToolSearch, Description: "Search the callable tools by name, description and parameter names; ranked hits with their call signatures.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"],"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"hits":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"score":{"type":"number"},"description":{"type":"string"},"signature":{"type":"string"}},"required":["name","score","signature"]}}},"required":["hits"]}`),
			Handler:      p.searchTool},
		{Name: ToolDescribe, Description: "TypeScript declarations for the named tools: argument and result types, docs, and the exact call syntax.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":50}},"required":["names"],"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"declarations":{"type":"string"},"unknown":{"type":"array","items":{"type":"string"}}},"required":["declarations"]}`),
			Handler:      p.describeTool},
		{Name: ToolDebug, Description: "What went wrong in the last program: the error with stack and source line, recent nested calls, and the persistent environment's top-level names.",
			InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`),
			Handler:     p.debugTool},
		{Name: ToolRaw, Description: "Call a tool and get its whole MCP result, {content, structuredContent, isError, error}, instead of the shaped value a binding resolves to. A failed call resolves too, with isError and error {code, message}.",
			InputSchema:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","minLength":1,"description":"The tool's full name, e.g. mcp__github__get_me."},"args":{"type":"object","description":"Its arguments (default {})."}},"required":["name"],"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"content":{"type":"array","items":{"type":"object","properties":{"type":{"enum":["text","image"]},"text":{"type":"string"},"data":{"type":"string","description":"base64"},"mimeType":{"type":"string"}},"required":["type"]}},"structuredContent":{"description":"The tool's structured content, when it has one."},"isError":{"type":"boolean"},"error":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"}},"required":["code","message"]}},"required":["content","isError"]}`),
			Handler:      p.rawTool},
	}
}

// rawTool makes the named nested call with its own execution's token (so
// the whole pipeline applies, and the call is nested in this one) and
// returns the whole result in MCP's shape.
func (p *Plugin) rawTool(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
	var args struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	}
	if err := json.Unmarshal(e.Arguments(), &args); err != nil {
		return nil, errs.Errorf(errs.CodeInvalidArguments, "%v", err)
	}
	if len(args.Args) == 0 || string(args.Args) == "null" {
		args.Args = json.RawMessage("{}")
	}
	_, res := ptc.New(p.reg, e, ptc.Options{Explain: p.explainer(e.Agent())}).Raw(ctx, args.Name, args.Args)
	out := struct {
		Content           []ptc.Block     `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
		IsError           bool            `json:"isError"`
		Error             *rawError       `json:"error,omitempty"`
	}{Content: ptc.Blocks(res.Content), StructuredContent: res.Value, IsError: res.IsError}
	if res.IsError && res.Err != nil {
		out.Error = &rawError{Code: res.Err.Code, Message: res.Err.Message}
		out.StructuredContent = nil
		out.Content = []ptc.Block{{Type: "text", Text: "Error: " + res.Err.Message}}
	}
	return tools.ValueResult(out)
}

type rawError struct {
	Code    errs.Code `json:"code"`
	Message string    `json:"message"`
}

// serverOf splits "mcp__<server>__<tool>" names; other tools have no server.
func serverOf(name string) string {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return ""
	}
	if i := strings.Index(rest, "__"); i > 0 {
		return rest[:i]
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}

type listEntry struct {
	Name        string `json:"name"`
	Server      string `json:"server,omitempty"`
	Description string `json:"description,omitempty"`
}

func (p *Plugin) listTool(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
	var args struct {
		Prefix, Server string
		Offset, Limit  int
	}
	if err := json.Unmarshal(e.Arguments(), &args); err != nil {
		return nil, errs.Errorf(errs.CodeInvalidArguments, "%v", err)
	}
	if args.Limit == 0 {
		args.Limit = 100
	}
	var all []listEntry
	for _, in := range p.callable(e.Agent()) {
		if !strings.HasPrefix(in.Name, args.Prefix) || (args.Server != "" && serverOf(in.Name) != args.Server) {
			continue
		}
		all = append(all, listEntry{Name: in.Name, Server: serverOf(in.Name), Description: firstLine(in.Description)})
	}
	page := []listEntry{}
	if args.Offset < len(all) {
		page = all[args.Offset:min(len(all), args.Offset+args.Limit)]
	}
	return tools.ValueResult(map[string]any{"total": len(all), "offset": args.Offset, "tools": page})
}

func (p *Plugin) searchTool(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
	var args struct {
		Query string
		Limit int
	}
	if err := json.Unmarshal(e.Arguments(), &args); err != nil {
		return nil, errs.Errorf(errs.CodeInvalidArguments, "%v", err)
	}
	if args.Limit == 0 {
		args.Limit = 10
	}
	infos := p.callable(e.Agent())
	type hit struct {
		Name        string  `json:"name"`
		Score       float64 `json:"score"`
		Description string  `json:"description,omitempty"`
		Signature   string  `json:"signature"`
	}
	hits := []hit{}
	for _, h := range search(infos, args.Query, args.Limit) {
		in := infos[h.index]
		hits = append(hits, hit{Name: in.Name, Score: h.score, Description: firstLine(in.Description), Signature: signature(in)})
	}
	return tools.ValueResult(map[string]any{"hits": hits})
}

func (p *Plugin) describeTool(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
	var args struct{ Names []string }
	if err := json.Unmarshal(e.Arguments(), &args); err != nil {
		return nil, errs.Errorf(errs.CodeInvalidArguments, "%v", err)
	}
	byName := map[string]tools.Info{}
	for _, in := range p.callable(e.Agent()) {
		byName[in.Name] = in
	}
	var found []tools.Info
	unknown := []string{}
	for _, n := range args.Names {
		if in, ok := byName[n]; ok {
			found = append(found, in)
		} else {
			unknown = append(unknown, n)
		}
	}
	if len(found) == 0 {
		var all []string
		for n := range byName {
			all = append(all, n)
		}
		sort.Strings(all)
		msg := fmt.Sprintf("no callable tool named %s", strings.Join(args.Names, ", "))
		if s := errs.Suggest(args.Names[0], all, 3); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, ", ") + "?"
		}
		return nil, errs.Errorf(errs.CodeUnknownTool, "%s", msg)
	}
	decl := Declarations(found)
	return &tools.Result{Content: []tools.Content{tools.Text{Text: decl}}, Value: mustJSON(map[string]any{"declarations": decl, "unknown": unknown})}, nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with values built here from strings and slices
	}
	return b
}
