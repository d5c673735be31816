package tools

import (
	"fmt"

	"github.com/codemode/codemode/scope"
)

// Agent is one agent: the identity its calls run with, and the lifecycle
// scope that owns what it holds. Its view resolves a name in its own layer
// (AgentLayer(ID)), then its preset's, then the global layer.
//
// An Agent comes from [Registry.NewAgent]; the zero Agent is not valid. A
// nil *Agent in an Input means no agent: the global view.
type Agent struct {
	id     string
	preset string
	scope  *scope.Scope
}

// ID is the agent's id, unique among the registry's live agents.
func (a *Agent) ID() string { return a.id }

// Preset is the key of the agent's preset: the label of the nearest preset
// scope above it, or "" when it has none.
func (a *Agent) Preset() string { return a.preset }

// Scope is the agent's lifecycle scope. Disposing it ends the agent and
// releases what it owns (its persistent environments among them).
func (a *Agent) Scope() *scope.Scope { return a.scope }

func (a *Agent) view() view {
	if a == nil {
		return view{}
	}
	return view{Preset: a.preset, Agent: a.id}
}

// NewAgent creates an agent whose scope is a child of parent (a preset
// scope, or a scope under one: the nearest preset above gives the agent's
// preset key). IDs are unique among live agents; an agent's ID is free
// again once its scope is disposed.
func (r *Registry) NewAgent(parent *scope.Scope, id string) (*Agent, error) {
	if id == "" {
		return nil, fmt.Errorf("tools: new agent: empty id")
	}
	r.agentsMu.Lock()
	defer r.agentsMu.Unlock()
	if r.agentIDs[id] {
		return nil, fmt.Errorf("tools: agent %q already exists", id)
	}
	key := ""
	if p := parent.Nearest(scope.KindPreset); p != nil {
		key = p.Label()
	}
	a := &Agent{id: id, preset: key, scope: parent.Child(scope.KindAgent, id)}
	r.agentIDs[id] = true
	a.scope.Effect(func() {
		r.agentsMu.Lock()
		delete(r.agentIDs, id)
		r.agentsMu.Unlock()
	})
	return a, nil
}
