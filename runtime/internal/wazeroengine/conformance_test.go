package wazeroengine

import (
	"testing"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
)

// TestConformance runs the engine conformance suite, the same tables the
// goja engine passes.
func TestConformance(t *testing.T) {
	enginetest.Run(t, func(t *testing.T) engine.Engine {
		return newTestEngine(t, Options{})
	})
}
