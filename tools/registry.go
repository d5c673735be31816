package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/tools/errs"
	"github.com/google/jsonschema-go/jsonschema"
)

// ReservedName cannot be registered: the host family uses it for its own
// built-in code runner, and a second tool under that name would shadow it.
const ReservedName = "run_code"

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
	// MaxArgumentBytes bounds a call's arguments as JSON text
	// (ARGUMENTS_TOO_LARGE), checked before they are parsed. If zero,
	// DefaultMaxArgumentBytes.
	MaxArgumentBytes int
}

// DefaultMaxArgumentBytes is Options.MaxArgumentBytes when unset: room for
// code_run's largest program, escaped, and then some.
const DefaultMaxArgumentBytes = 4 << 20

// MaxNameBytes bounds a tool name in a call. No tool has a longer name, so a
// longer one is UNKNOWN_TOOL at once, without suggestions (computing them
// costs time quadratic in the name's length).
const MaxNameBytes = 512

// Registry holds tools in layers and executes them through the pipeline.
// It is safe for concurrent use.
type Registry struct {
	opts   Options
	log    *slog.Logger
	tools  table[*registered]
	prompt promptTables

	pre     listeners[PreExecute]
	guards  listeners[Guard]
	exec    listeners[ExecuteHook]
	post    listeners[PostExecute]
	subs    listeners[func(ResultEvent)]
	asm     listeners[AssembleHook]
	changes listeners[func(Layer)]
	gen     atomic.Uint64 // bumped on every tool registration, update and removal

	mw middlewares

	agentsMu sync.Mutex
	agentIDs map[string]bool // the IDs of live agents: an agent layer is keyed by ID
}

type registered struct {
	tool   Tool
	schema *jsonschema.Resolved // nil: the schema accepts every object
	flat   *flatSchema          // the fast path for schema, or nil (flatschema.go)
	layer  Layer
}

// New returns an empty registry.
func New(opts Options) *Registry {
	r := &Registry{opts: opts, log: opts.Logger, agentIDs: map[string]bool{}}
	if r.opts.Approver == nil {
		r.opts.Approver = RefuseAll
	}
	if r.opts.DefaultTimeout == 0 {
		r.opts.DefaultTimeout = 5 * time.Minute
	}
	if r.opts.MaxArgumentBytes <= 0 {
		r.opts.MaxArgumentBytes = DefaultMaxArgumentBytes
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

// ErrRemoved is returned (wrapped) by Registration.Update after Remove.
var ErrRemoved = errors.New("the registration was removed")

// Registration is one registered tool: it can be updated in place or
// removed.
type Registration struct {
	r     *Registry
	name  string
	layer Layer
	slot  *slot[*registered]
	once  sync.Once
}

// Register adds t to layer l. It fails for the reserved name, an empty name,
// a missing handler, a schema that does not resolve, or a name the layer
// already has. The Registration updates the tool in place or removes it.
func (r *Registry) Register(l Layer, t Tool) (*Registration, error) {
	g, err := r.prepare(l, t)
	if err != nil {
		return nil, err
	}
	slot, err := r.tools.Put(l, t.Name, g)
	if err != nil {
		return nil, fmt.Errorf("tools: register: %w", err)
	}
	r.changed(l)
	return &Registration{r: r, name: t.Name, layer: l, slot: slot}, nil
}

// Update replaces the tool's definition (description, schemas, handler)
// in one step, so a call never finds the name missing in between, as it
// would between Remove and Register. t must keep the name. It fails like
// Register for a bad definition, and once the registration was removed.
func (g *Registration) Update(t Tool) error {
	if t.Name != g.name {
		return fmt.Errorf("tools: update %q: the name cannot change (got %q)", g.name, t.Name)
	}
	reg, err := g.r.prepare(g.layer, t)
	if err != nil {
		return err
	}
	if !g.slot.Set(reg) {
		return fmt.Errorf("tools: update %q: %w", g.name, ErrRemoved)
	}
	g.r.changed(g.layer)
	return nil
}

// Remove unregisters the tool. It is idempotent.
func (g *Registration) Remove() {
	g.once.Do(func() {
		g.slot.Remove()
		g.r.changed(g.layer)
	})
}

// prepare checks a definition and resolves its input schema.
func (r *Registry) prepare(l Layer, t Tool) (*registered, error) {
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
	flat := compileFlat(t.InputSchema)
	if flat.trivial() {
		resolved = nil // validation is exactly "a JSON object", which the snapshot checks
	}
	return &registered{tool: t, schema: resolved, flat: flat, layer: l}, nil
}

// changed records a change of the tool set: the generation moves and the
// OnChange listeners run.
func (r *Registry) changed(l Layer) {
	r.gen.Add(1)
	for _, fn := range r.changes.load() {
		func() {
			defer func() {
				if p := recover(); p != nil && r.log != nil {
					r.log.Warn("tools: change listener panicked", slog.Any("panic", p))
				}
			}()
			(*fn)(l)
		}()
	}
}

// OnChange calls fn with the layer after every change of the tool set: a
// registration, an update or a removal. fn runs synchronously on the
// goroutine that made the change and must not block; a burst of changes
// calls it once per change.
func (r *Registry) OnChange(fn func(Layer)) (remove func()) { return r.changes.add(fn) }

// Generation changes whenever a tool is registered or removed, so callers
// can cache what they derive from the tool set (listings, catalogs).
func (r *Registry) Generation() uint64 { return r.gen.Load() }

// Info describes a registered tool without its body.
type Info struct {
	Name         string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  *Annotations // nil when the tool declares none; shared, do not modify
	Layer        Layer
}

func (g *registered) info() Info {
	return Info{Name: g.tool.Name, Description: g.tool.Description, InputSchema: g.tool.InputSchema, OutputSchema: g.tool.OutputSchema, Annotations: g.tool.Annotations, Layer: g.layer}
}

// Get is the global view of docs/contract.md#layers.
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

// OnPreExecute adds a listener to the pre-execute waterfall (step 4).
func (r *Registry) OnPreExecute(fn PreExecute) (remove func()) { return r.pre.add(fn) }

// OnGuard adds a monotonic guard (step 6).
func (r *Registry) OnGuard(g Guard) (remove func()) { return r.guards.add(g) }

// OnExecute adds a listener to the dispatch waterfall around the body (step
// 7).
func (r *Registry) OnExecute(fn ExecuteHook) (remove func()) { return r.exec.add(fn) }

// OnPostExecute adds a listener to the post-execute waterfall (step 8).
func (r *Registry) OnPostExecute(fn PostExecute) (remove func()) { return r.post.add(fn) }

// OnResult registers fn for every tool/result event (step 9). fn is called
// synchronously on the executing goroutine after the result is final; it
// must be quick and must not call Execute.
func (r *Registry) OnResult(fn func(ResultEvent)) (remove func()) { return r.subs.add(fn) }

// ResultEvent is the tool/result log event.
type ResultEvent struct {
	CallID       string
	RootCallID   string
	ParentCallID string // "" for a root call
	Name         string
	Agent        string
	Duration     time.Duration
	IsError      bool
	Code         errs.Code // "" on success
}
