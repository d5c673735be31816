package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/scope"
	"github.com/google/jsonschema-go/jsonschema"
)

// ReservedName cannot be registered: the host family uses it for its own
// built-in code runner, and a second tool under that name would shadow it.
const ReservedName = "run_code"

// Agent identifies the agent a call runs for. Preset is the key of the
// agent's preset (its view's preset layer).
type Agent struct {
	ID     string
	Preset string
}

func (a *Agent) view() scope.View {
	if a == nil {
		return scope.View{}
	}
	return scope.View{Preset: a.Preset, Agent: a.ID}
}

// Options configures a Registry. The zero value means the defaults.
type Options struct {
	// Logger receives tool/result events at Info (and listener failures at
	// Warn). If nil, nothing is logged.
	Logger *slog.Logger
	// Approver decides Ask verdicts. If nil, RefuseAll: asks are refused
	// unless an approval service is configured (fail closed).
	Approver Approver
	// DefaultTimeout bounds every call that has no Input.Timeout. If zero,
	// 5 minutes; negative means no default deadline.
	DefaultTimeout time.Duration
}

// Registry holds tools in layers and executes them through the pipeline.
// It is safe for concurrent use.
type Registry struct {
	opts   Options
	log    *slog.Logger
	tools  scope.Table[*registered]
	prompt promptTables

	pre    listeners[PreExecute]
	guards listeners[Guard]
	exec   listeners[ExecuteHook]
	post   listeners[PostExecute]
	subs   listeners[func(ResultEvent)]
	asm    listeners[AssembleHook]
	gen    atomic.Uint64 // bumped on every tool registration and removal
}

type registered struct {
	tool   Tool
	schema *jsonschema.Resolved // nil: the schema accepts every object
	layer  scope.Layer
}

// New returns an empty registry.
func New(opts Options) *Registry {
	r := &Registry{opts: opts, log: opts.Logger}
	if r.opts.Approver == nil {
		r.opts.Approver = RefuseAll
	}
	if r.opts.DefaultTimeout == 0 {
		r.opts.DefaultTimeout = 5 * time.Minute
	}
	return r
}

// listeners is a copy-on-write list: Execute reads it without locking.
type listeners[T any] struct {
	mu   sync.Mutex
	list atomic.Pointer[[]*T]
}

func (l *listeners[T]) add(fn T) (remove func()) {
	p := &fn
	l.mu.Lock()
	var cur []*T
	if old := l.list.Load(); old != nil {
		cur = *old
	}
	next := append(append([]*T(nil), cur...), p)
	l.list.Store(&next)
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		old := l.list.Load()
		if old == nil {
			return
		}
		next := make([]*T, 0, len(*old))
		for _, q := range *old {
			if q != p {
				next = append(next, q)
			}
		}
		l.list.Store(&next)
	}
}

func (l *listeners[T]) load() []*T {
	if p := l.list.Load(); p != nil {
		return *p
	}
	return nil
}

// Register adds t to layer l. It fails for the reserved name, an empty name,
// a missing handler, a schema that does not resolve, or a name the layer
// already has. The returned remove unregisters it (idempotent).
func (r *Registry) Register(l scope.Layer, t Tool) (remove func(), err error) {
	switch {
	case t.Name == "":
		return nil, errors.New("tools: register: empty name")
	case t.Name == ReservedName:
		return nil, fmt.Errorf("tools: register %q: the name is reserved", t.Name)
	case t.Handler == nil:
		return nil, fmt.Errorf("tools: register %q: no handler", t.Name)
	}
	if len(t.InputSchema) == 0 {
		t.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(t.InputSchema, &s); err != nil {
		return nil, fmt.Errorf("tools: register %q: input schema: %w", t.Name, err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("tools: register %q: input schema: %w", t.Name, err)
	}
	if trivialObjectSchema(t.InputSchema) {
		resolved = nil // validation is exactly "a JSON object", which the snapshot checks
	}
	removeEntry, err := r.tools.Add(l, t.Name, &registered{tool: t, schema: resolved, layer: l})
	if err != nil {
		return nil, fmt.Errorf("tools: register: %w", err)
	}
	r.gen.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			removeEntry()
			r.gen.Add(1)
		})
	}, nil
}

// Generation changes whenever a tool is registered or removed, so callers
// can cache what they derive from the tool set (listings, catalogs).
func (r *Registry) Generation() uint64 { return r.gen.Load() }

// Info describes a registered tool without its body.
type Info struct {
	Name         string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Layer        scope.Layer
}

func (g *registered) info() Info {
	return Info{Name: g.tool.Name, Description: g.tool.Description, InputSchema: g.tool.InputSchema, OutputSchema: g.tool.OutputSchema, Layer: g.layer}
}

// Get is the global view of CONTRACT §2.
func (r *Registry) Get(name string) (Info, bool) {
	g, ok := r.tools.Get(name)
	if !ok {
		return Info{}, false
	}
	return g.info(), true
}

// GetIn is the preset-qualified view: the preset's layer over the global one.
func (r *Registry) GetIn(name, preset string) (Info, bool) {
	g, ok := r.tools.GetIn(name, preset)
	if !ok {
		return Info{}, false
	}
	return g.info(), true
}

// Owned reports whether preset owns name: the preset view resolves it and
// the global view does not.
func (r *Registry) Owned(name, preset string) bool { return r.tools.Owned(name, preset) }

// Lookup resolves name in agent's view (agent, preset, global).
func (r *Registry) Lookup(name string, agent *Agent) (Info, bool) {
	g, _, ok := r.tools.Resolve(name, agent.view())
	if !ok {
		return Info{}, false
	}
	return g.info(), true
}

// List returns every tool in agent's view (nil agent: the global view),
// preset layer first, then global, then agent, each in registration order.
func (r *Registry) List(agent *Agent) []Info {
	items := r.tools.List(agent.view())
	out := make([]Info, len(items))
	for i, it := range items {
		out[i] = it.Value.info()
	}
	return out
}

// OnPreExecute adds a pre-execute listener.
func (r *Registry) OnPreExecute(fn PreExecute) (remove func()) { return r.pre.add(fn) }

// AddGuard adds a monotonic guard.
func (r *Registry) AddGuard(g Guard) (remove func()) { return r.guards.add(g) }

// OnExecute adds a dispatch-waterfall listener.
func (r *Registry) OnExecute(fn ExecuteHook) (remove func()) { return r.exec.add(fn) }

// OnPostExecute adds a post-execute listener.
func (r *Registry) OnPostExecute(fn PostExecute) (remove func()) { return r.post.add(fn) }

// Subscribe registers fn for every tool/result event. fn is called
// synchronously on the executing goroutine after the result is final; it
// must be quick and must not call Execute.
func (r *Registry) Subscribe(fn func(ResultEvent)) (remove func()) { return r.subs.add(fn) }

// ResultEvent is the tool/result log event.
type ResultEvent struct {
	CallID       string
	RootCallID   string
	ParentCallID string // "" for a root call
	Name         string
	Agent        string
	Duration     time.Duration
	IsError      bool
	Code         Code // "" on success
}

// trivialObjectSchema reports whether schema accepts exactly the JSON
// objects: {"type":"object"} with only annotations and no constraints.
func trivialObjectSchema(schema json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil {
		return false
	}
	for k, v := range m {
		switch k {
		case "type":
			if string(v) != `"object"` {
				return false
			}
		case "$schema", "$id", "title", "description", "$comment", "examples", "default":
		case "properties":
			var p map[string]json.RawMessage
			if json.Unmarshal(v, &p) != nil || len(p) != 0 {
				return false
			}
		case "additionalProperties":
			if string(v) != "true" && string(v) != "{}" {
				return false
			}
		default:
			return false
		}
	}
	return m["type"] != nil
}
