package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode/codemode/tools"
)

// assemble is the assemble-waterfall hook. It acts only on code-mode
// assemblies: those that contain the discovery tools, which exist only in
// this preset. Others pass through untouched (the same *Assembly).
func (p *Plugin) assemble(ctx context.Context, agent *tools.Agent, next func() (*tools.Assembly, error)) (*tools.Assembly, error) {
	a, err := next()
	if err != nil || a == nil || !p.isCodeModeAssembly(a, agent) {
		return a, err
	}
	if p.presetKey == "" {
		p.warnFallback()
	}
	kept := make([]tools.WireTool, 0, len(a.Tools))
	for _, t := range a.Tools {
		if !p.masked(t.Name, agent) {
			kept = append(kept, t)
		}
	}
	out := &tools.Assembly{Tools: kept, Contexts: a.Contexts}
	catalog := p.Catalog(agent)
	section := tools.Section{Name: sectionCodeMode, Text: sectionText(catalog)}
	replaced := false
	for _, s := range a.Sections {
		if s.Name == sectionSDK && !replaced {
			out.Sections = append(out.Sections, section)
			replaced = true
			continue
		}
		out.Sections = append(out.Sections, s)
	}
	if !replaced {
		out.Sections = append(out.Sections, section)
	}
	// code_run's description carries the catalog too, for clients that
	// show tool descriptions but not server instructions.
	for i, t := range out.Tools {
		if t.Name == ToolCodeRun {
			out.Tools[i].Description = codeRunDescription(catalog)
		}
	}
	return out, nil
}

func (p *Plugin) isCodeModeAssembly(a *tools.Assembly, agent *tools.Agent) bool {
	has := 0
	for _, t := range a.Tools {
		switch t.Name {
		case ToolList, ToolSearch, ToolDescribe:
			has++
		}
	}
	return has == 3 && p.isCodeModeAgent(agent)
}

// Catalog is the list of callable tool names grouped by server, cut to the
// catalog budget. It never holds schemas: their token cost is what code
// mode exists to remove.
func (p *Plugin) Catalog(agent *tools.Agent) string {
	infos := p.callable(agent)
	groups := map[string][]string{}
	var order []string
	for _, in := range infos {
		s := serverOf(in.Name)
		if s == "" {
			s = "(host)"
		}
		if _, ok := groups[s]; !ok {
			order = append(order, s)
		}
		groups[s] = append(groups[s], in.Name)
	}
	var b strings.Builder
	shown := 0
	budget := p.opts.CatalogBudget
	for _, s := range order {
		line := s + ": "
		if b.Len()+len(line) > budget {
			break
		}
		b.WriteString(line)
		for i, n := range groups[s] {
			item := n
			if i > 0 {
				item = ", " + n
			}
			if b.Len()+len(item) > budget {
				break
			}
			b.WriteString(item)
			shown++
		}
		b.WriteByte('\n')
	}
	if rest := len(infos) - shown; rest > 0 {
		fmt.Fprintf(&b, "… and %d more: find them with code_tools_search.\n", rest)
	}
	if len(infos) == 0 {
		b.WriteString("(no tools are available to programs)\n")
	}
	return b.String()
}

const codeModeIntro = `Call tools by writing a program for code_run instead of calling them one by one.
- The program is the body of an async JavaScript function (TypeScript types are fine).
- Call a tool with: const r = await tools["name"]({ ...args }); it resolves to the tool's structured result (or its text).
- Only what you return and what you console.log comes back to you; intermediate results stay in the program. Filter and summarise before returning.
- Independent calls can run together: await Promise.all([...]).
- A failed call throws an Error with .code (e.g. INVALID_ARGUMENTS, DENIED, TIMEOUT) and .message; catch it or let it end the run.
- Discover tools inside a program: await tools.code_tools_search({ query: "..." }) ranks tools with their signatures; await tools.code_tools_describe({ names: ["..."] }) gives TypeScript declarations; await tools.code_tools_list({}) pages through all of them; await tools.code_debug({}) explains the last failure.
- Not available: require, import, fetch, timers, process, the file system. Everything goes through tools.`

func sectionText(catalog string) string {
	return "# Code Mode\n\n" + codeModeIntro + "\n\nCallable tools:\n" + catalog
}

// codeRunDescription is short: the Code Mode section carries the full
// instructions, and every byte here is paid on every request.
func codeRunDescription(catalog string) string {
	return "Run a program that calls tools: the body of an async JavaScript/TypeScript function, where each tool is `await tools[\"name\"](args)`. Only what it returns or console.logs comes back. Find tools with `await tools.code_tools_search({ query })` and `await tools.code_tools_describe({ names })`.\n\nCallable tools:\n" + catalog
}

// guard denies a direct (un-nested) call by the model to a tool that code
// mode masks, with a hint showing the code_run program that makes it.
func (p *Plugin) guard(e *tools.Execution) string {
	if !e.Parent().IsZero() {
		// A real parent token: a program's nested call. code_run itself may
		// not nest, though: a program starting programs has no bound.
		if e.Name() == ToolCodeRun && e.Tool().Layer == p.layer {
			return "code_run cannot be called from inside a program; call the tools directly"
		}
		return ""
	}
	agent := e.Agent()
	if !p.isCodeModeAgent(agent) || !p.masked(e.Name(), agent) {
		return ""
	}
	// The call id may look nested ("…:ptc:…"); without a parent token it is
	// a direct call all the same.
	return Hint(e.Name(), e.Arguments())
}

// Hint is the self-healing message for a direct call to a masked tool: it
// shows the exact code_run program to use instead.
func Hint(name string, args json.RawMessage) string {
	if len(args) == 0 || string(args) == "{}" {
		args = json.RawMessage("{}")
	}
	program := fmt.Sprintf("const result = await tools[%s](%s);\nreturn result;", jsonQuote(name), args)
	call, _ := json.Marshal(map[string]string{"code": program})
	return fmt.Sprintf("%s is available only inside code_run programs in code mode. Call code_run with:\n%s\n(The program above calls the tool with your arguments and returns its result; filter it in the program to keep only what you need.)", name, call)
}
