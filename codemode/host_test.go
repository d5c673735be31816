package codemode

import (
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// testHost is the harness the tests mount code mode into: a registry and
// the host → preset → agent scope tree, as `codemode serve` builds them.
type testHost struct {
	Registry *tools.Registry
	Scope    *scope.Scope
}

func newTestHost() *testHost {
	return &testHost{Registry: tools.New(tools.Options{}), Scope: scope.NewHost("host")}
}

func (h *testHost) Preset(key string) *scope.Scope { return h.Scope.Child(scope.KindPreset, key) }

func (h *testHost) NewAgent(parent *scope.Scope, id string) (*tools.Agent, error) {
	return h.Registry.NewAgent(parent, id)
}

func (h *testHost) Close() error { return h.Scope.Dispose() }
