package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/runtime"
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
	section := tools.Section{Name: sectionCodeMode, Text: sectionText()}
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
	// code_run's description carries the catalog: every client shows tool
	// descriptions to the model, not every one shows server instructions.
	for i, t := range out.Tools {
		if t.Name == ToolCodeRun {
			out.Tools[i].Description = p.codeRunDescription(p.Catalog(agent).Text)
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

// sectionText is the Code Mode section: short, because code_run's
// description, which every client shows the model, carries the guide, the
// state, the limits and the catalog; saying them twice would cost the
// model their tokens twice (RATIONALE.md, "Why is the catalog in code_run's
// description only?").
func sectionText() string {
	return "# Code Mode\n\nThis agent's tools are called from programs: send code_run a short JavaScript program that calls them as async functions (`await tools.NAME(args)`); only what it returns or logs comes back. code_run's description lists every callable tool with its TypeScript signature, the limits in force and what survives between calls.\n"
}

// codeRunDescription is what the model reads about code mode: how to write
// a program, what calls resolve to, the state, the limits, what is
// withheld, the discovery calls, then the catalog. Every line is paid on
// every request, so each says one thing once.
func (p *Plugin) codeRunDescription(catalog string) string {
	lim := p.rt.Limits()
	var b strings.Builder
	b.WriteString("Run a program that calls tools: the body of an async JavaScript function (TypeScript types are stripped). Call a tool with `await tools.NAME(args)`, independent ones together with `await Promise.all([...])`. Only what the program returns or console.logs comes back: filter and summarise in it.\n")
	b.WriteString("Results: a call resolves to the tool's structured content, else to its text parsed as JSON (an object or array), else to the text. A failed call throws an Error with .code and a .message that shows the expected signature.\n")
	if p.opts.Mode == runtime.ModePersistent {
		fmt.Fprintf(&b, "State: top-level declarations (const, let, function, class) survive between your code_run calls, like a REPL; \"reset\": true starts fresh. After a reset (timeout, memory, %s idle, eviction, or yours) the next result's first line says so.\n", human.Duration(p.envs.Options().IdleTTL))
	} else {
		b.WriteString("State: none; every program starts fresh.\n")
	}
	fmt.Fprintf(&b, "Limits per program: %s of time, %d nested calls (%d at once), %s of output, %s of return value, %s of memory.\n",
		human.Duration(lim.Timeout), lim.MaxSubcalls, lim.MaxConcurrentSubcalls, human.Size(int64(lim.MaxLogBytes)), human.Size(int64(lim.MaxResultBytes)), human.Size(lim.MemoryBytes))
	b.WriteString("Not available: require, import(), fetch, process, files, network; everything goes through tools.\n")
	b.WriteString("Also callable: tools.code_tools_search({ query }), tools.code_tools_describe({ names }) (full declarations), tools.code_tools_raw({ name, args }) (a call's whole MCP result), tools.code_debug({}) (the last failure).\n\n")
	b.WriteString(catalog)
	return b.String()
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
