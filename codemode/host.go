package codemode

import (
	"fmt"
	"sync"

	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// Host is the agent harness codemode mounts into: a tool registry and the
// host → preset → agent scope tree. `codemode serve` builds one; embedders
// that have their own harness build one per process too.
type Host struct {
	Registry *tools.Registry
	Scope    *scope.Scope

	mu     sync.Mutex
	agents map[string]*Agent
}

// NewHost returns a host with a fresh registry.
func NewHost(opts tools.Options) *Host {
	return &Host{Registry: tools.New(opts), Scope: scope.NewHost("host"), agents: map[string]*Agent{}}
}

// Preset creates a preset scope; its label is the preset key of the
// registry's preset layer.
func (h *Host) Preset(key string) *scope.Scope { return h.Scope.Child(scope.KindPreset, key) }

// Agent is one agent: an identity for the registry and a lifecycle scope.
// Disposing Scope ends the agent and releases what it owns (its persistent
// environments among them).
type Agent struct {
	ID     string
	Preset string
	Scope  *scope.Scope
	ref    *tools.Agent
}

// Ref is the agent as the registry knows it (for tools.Input.Agent).
func (a *Agent) Ref() *tools.Agent { return a.ref }

// NewAgent creates an agent under preset. IDs are unique among live agents.
func (h *Host) NewAgent(preset *scope.Scope, id string) (*Agent, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, dup := h.agents[id]; dup {
		return nil, fmt.Errorf("codemode: agent %q already exists", id)
	}
	key := ""
	if p := preset.Nearest(scope.KindPreset); p != nil {
		key = p.Label()
	}
	a := &Agent{ID: id, Preset: key, Scope: preset.Child(scope.KindAgent, id), ref: &tools.Agent{ID: id, Preset: key}}
	h.agents[id] = a
	a.Scope.Effect(func() {
		h.mu.Lock()
		if h.agents[id] == a {
			delete(h.agents, id)
		}
		h.mu.Unlock()
	})
	return a, nil
}

// Agent returns the live agent with the given id.
func (h *Host) Agent(id string) (*Agent, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.agents[id]
	return a, ok
}

// Close disposes the whole scope tree.
func (h *Host) Close() error { return h.Scope.Dispose() }
