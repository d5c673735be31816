package tools

import (
	"errors"
	"fmt"
	"sort"
	"sync"
)

// LayerKind says which of the three layers a value lives in.
type LayerKind uint8

// The layers, in the order an agent's view resolves them last to first:
// agent shadows preset shadows global.
const (
	LayerGlobal LayerKind = iota + 1
	LayerPreset
	LayerAgent
)

func (k LayerKind) String() string {
	switch k {
	case LayerGlobal:
		return "global"
	case LayerPreset:
		return "preset"
	case LayerAgent:
		return "agent"
	}
	return fmt.Sprintf("LayerKind(%d)", k)
}

// Layer names one layer: the global one, a preset's (Key is the preset key)
// or an agent's (Key is the agent ID).
type Layer struct {
	Kind LayerKind
	Key  string
}

// GlobalLayer is the host-wide layer.
func GlobalLayer() Layer { return Layer{Kind: LayerGlobal} }

// PresetLayer is the layer of the preset with the given key.
func PresetLayer(key string) Layer { return Layer{Kind: LayerPreset, Key: key} }

// AgentLayer is the layer of one agent.
func AgentLayer(id string) Layer { return Layer{Kind: LayerAgent, Key: id} }

func (l Layer) String() string {
	if l.Kind == LayerGlobal {
		return "global"
	}
	return l.Kind.String() + ":" + l.Key
}

// view selects the layers a lookup sees. The zero view is the global view.
// A view with Preset set sees that preset's layer over the global one; with
// Agent set too, the agent's layer over both.
type view struct {
	Preset string
	Agent  string
}

// ErrDuplicate is returned (wrapped) when a name is added twice to one layer.
var ErrDuplicate = errors.New("duplicate name in layer")

// table stores named values in layers. The zero Table is ready to use and
// safe for concurrent use; reads do not block each other.
type table[T any] struct {
	mu     sync.RWMutex
	global map[string]*entry[T]
	preset map[string]map[string]*entry[T]
	agent  map[string]map[string]*entry[T]
	seq    uint64
}

type entry[T any] struct {
	v     T
	seq   uint64
	layer Layer
}

func (t *table[T]) layerMap(l Layer, create bool) map[string]*entry[T] {
	switch l.Kind {
	case LayerGlobal:
		if t.global == nil && create {
			t.global = map[string]*entry[T]{}
		}
		return t.global
	case LayerPreset, LayerAgent:
		outer := &t.preset
		if l.Kind == LayerAgent {
			outer = &t.agent
		}
		if *outer == nil {
			if !create {
				return nil
			}
			*outer = map[string]map[string]*entry[T]{}
		}
		m := (*outer)[l.Key]
		if m == nil && create {
			m = map[string]*entry[T]{}
			(*outer)[l.Key] = m
		}
		return m
	}
	return nil
}

// Add stores v under name in layer l. It fails with ErrDuplicate when the
// layer already has the name. remove deletes exactly this entry (a later
// entry added under the same name after remove is left alone); it is
// idempotent.
func (t *table[T]) Add(l Layer, name string, v T) (remove func(), err error) {
	s, err := t.Put(l, name, v)
	if err != nil {
		return nil, err
	}
	return s.Remove, nil
}

// Put is Add returning the entry's Slot, which can also replace the value
// in place.
func (t *table[T]) Put(l Layer, name string, v T) (*slot[T], error) {
	if l.Kind < LayerGlobal || l.Kind > LayerAgent {
		return nil, fmt.Errorf("tools: invalid layer %v", l)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.layerMap(l, true)
	if _, dup := m[name]; dup {
		return nil, fmt.Errorf("%q is already registered in the %s layer: %w", name, l, ErrDuplicate)
	}
	t.seq++
	e := &entry[T]{v: v, seq: t.seq, layer: l}
	m[name] = e
	return &slot[T]{t: t, l: l, name: name, e: e}, nil
}

// slot is one entry of a table.
type slot[T any] struct {
	t    *table[T]
	l    Layer
	name string
	e    *entry[T]
}

// Set replaces the entry's value in one step: a reader sees the old value
// or the new one, never neither. The entry keeps its place in listings. It
// reports false, changing nothing, once the entry has been removed.
func (s *slot[T]) Set(v T) bool {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	if m := s.t.layerMap(s.l, false); m != nil && m[s.name] == s.e {
		s.e.v = v
		return true
	}
	return false
}

// Remove deletes the entry. It is idempotent.
func (s *slot[T]) Remove() {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	if m := s.t.layerMap(s.l, false); m != nil && m[s.name] == s.e {
		delete(m, s.name)
	}
}

// Get is the global view: the value registered under name in the global
// layer.
func (t *table[T]) Get(name string) (T, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if e, ok := t.global[name]; ok {
		return e.v, true
	}
	var zero T
	return zero, false
}

// GetIn is the preset-qualified view: the preset's layer, then the global
// layer. With an empty preset key it equals Get.
func (t *table[T]) GetIn(name, preset string) (T, bool) {
	v, _, ok := t.Resolve(name, view{Preset: preset})
	return v, ok
}

// Resolve looks name up in the view: agent layer, then preset, then global.
// It reports the layer the value came from.
func (t *table[T]) Resolve(name string, v view) (T, Layer, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if v.Agent != "" {
		if e, ok := t.agent[v.Agent][name]; ok {
			return e.v, e.layer, true
		}
	}
	if v.Preset != "" {
		if e, ok := t.preset[v.Preset][name]; ok {
			return e.v, e.layer, true
		}
	}
	if e, ok := t.global[name]; ok {
		return e.v, e.layer, true
	}
	var zero T
	return zero, Layer{}, false
}

// Owned is the ownership rule of docs/contract.md#layers: name is owned by the preset iff
// the preset view resolves it and the global view does not.
func (t *table[T]) Owned(name, preset string) bool {
	_, inPreset := t.GetIn(name, preset)
	_, inGlobal := t.Get(name)
	return inPreset && !inGlobal
}

// item is one entry of a listing.
type item[T any] struct {
	Name  string
	Value T
	Layer Layer
}

// List returns every name visible in the view with the value it resolves
// to, ordered by layer (preset, global, agent) and then by registration
// order, so listings are deterministic.
func (t *table[T]) List(v view) []item[T] {
	t.mu.RLock()
	seen := map[string]*entry[T]{}
	add := func(m map[string]*entry[T]) {
		for name, e := range m {
			if _, shadowed := seen[name]; !shadowed {
				seen[name] = e
			}
		}
	}
	if v.Agent != "" {
		add(t.agent[v.Agent])
	}
	if v.Preset != "" {
		add(t.preset[v.Preset])
	}
	add(t.global)
	items := make([]item[T], 0, len(seen))
	seqs := make(map[string]uint64, len(seen))
	for name, e := range seen {
		items = append(items, item[T]{Name: name, Value: e.v, Layer: e.layer})
		seqs[name] = e.seq
	}
	t.mu.RUnlock()
	rank := map[LayerKind]int{LayerPreset: 0, LayerGlobal: 1, LayerAgent: 2}
	sort.Slice(items, func(i, j int) bool {
		ri, rj := rank[items[i].Layer.Kind], rank[items[j].Layer.Kind]
		if ri != rj {
			return ri < rj
		}
		return seqs[items[i].Name] < seqs[items[j].Name]
	})
	return items
}
