package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// Section is a named block of the system prompt, such as "tools:sdk".
type Section struct {
	Name string
	Text string
}

// PromptContext is a runtime-context entry: text rendered into the agent's
// runtime context, ordered by Order.
type PromptContext struct {
	Name string
	// Order sorts contexts ascending. It must be finite.
	Order float64
	// Text is the context's text. If TextFunc is set it is used instead,
	// evaluated at each assembly for the agent.
	Text     string
	TextFunc func(agent *Agent) string
	// Required contexts survive AssembleOptions.SuppressContext.
	Required bool
}

// WireTool is a tool as presented to a model: its schemas, no body.
type WireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// RenderedContext is a context after evaluation.
type RenderedContext struct {
	Name string
	Text string
}

// Assembly is what a model request is built from.
type Assembly struct {
	Sections []Section
	Tools    []WireTool
	Contexts []RenderedContext
}

// AssembleOptions tunes one assembly. The zero value is a normal request.
type AssembleOptions struct {
	// SuppressContext drops every context that is not Required (as the host
	// does for sub-steps that must not repeat runtime context).
	SuppressContext bool
}

// AssembleHook is a listener of the assemble waterfall. It receives the
// agent and a function producing the assembly of the listeners after it,
// and returns the assembly that stands (possibly rewritten). It must not
// modify the assembly next returned in place if it does not own it; the
// registry hands each hook a fresh assembly, so rewriting it is allowed.
type AssembleHook func(ctx context.Context, agent *Agent, next func() (*Assembly, error)) (*Assembly, error)

type promptTables struct {
	sections table[Section]
	contexts table[PromptContext]
}

// AddSection registers a prompt section in layer l. A duplicate name in one
// layer fails.
func (r *Registry) AddSection(l Layer, s Section) (remove func(), err error) {
	if s.Name == "" {
		return nil, fmt.Errorf("tools: section: empty name")
	}
	remove, err = r.prompt.sections.Add(l, s.Name, s)
	if err != nil {
		return nil, fmt.Errorf("tools: prompt section: %w", err)
	}
	return remove, nil
}

// AddContext registers a prompt context in layer l. Order must be finite
// (NaN and ±Inf are refused); a duplicate name in one layer fails.
func (r *Registry) AddContext(l Layer, c PromptContext) (remove func(), err error) {
	if c.Name == "" {
		return nil, fmt.Errorf("tools: prompt context: empty name")
	}
	if math.IsNaN(c.Order) || math.IsInf(c.Order, 0) {
		return nil, fmt.Errorf("tools: prompt context %q: order must be a finite number, got %v", c.Name, c.Order)
	}
	remove, err = r.prompt.contexts.Add(l, c.Name, c)
	if err != nil {
		return nil, fmt.Errorf("tools: prompt context %q is already registered (for a per-agent override, register it in that agent's layer): %w", c.Name, err)
	}
	return remove, nil
}

// OnAssemble adds a listener to the assemble waterfall. Listeners run in
// registration order, the first outermost.
func (r *Registry) OnAssemble(h AssembleHook) (remove func()) { return r.asm.add(h) }

// Assemble builds the request for agent: sections and contexts visible in
// its view, and the wire schemas of every tool in its three layers, then
// runs the assemble waterfall over it.
func (r *Registry) Assemble(ctx context.Context, agent *Agent, opts AssembleOptions) (a *Assembly, err error) {
	hooks := r.asm.load()
	defer func() {
		if p := recover(); p != nil {
			a, err = nil, fmt.Errorf("tools: assemble hook panicked: %v", p)
		}
	}()
	var step func(i int) (*Assembly, error)
	step = func(i int) (*Assembly, error) {
		if i == len(hooks) {
			return r.baseAssembly(agent, opts), nil
		}
		return (*hooks[i])(ctx, agent, func() (*Assembly, error) { return step(i + 1) })
	}
	return step(0)
}

func (r *Registry) baseAssembly(agent *Agent, opts AssembleOptions) *Assembly {
	v := agent.view()
	a := &Assembly{}
	for _, it := range r.prompt.sections.List(v) {
		a.Sections = append(a.Sections, it.Value)
	}
	for _, it := range r.tools.List(v) {
		t := it.Value.tool
		a.Tools = append(a.Tools, WireTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema})
	}
	ctxs := r.prompt.contexts.List(v)
	sort.SliceStable(ctxs, func(i, j int) bool { return ctxs[i].Value.Order < ctxs[j].Value.Order })
	for _, it := range ctxs {
		c := it.Value
		if opts.SuppressContext && !c.Required {
			continue
		}
		text := c.Text
		if c.TextFunc != nil {
			text = c.TextFunc(agent)
		}
		if text == "" {
			continue
		}
		a.Contexts = append(a.Contexts, RenderedContext{Name: c.Name, Text: text})
	}
	return a
}
