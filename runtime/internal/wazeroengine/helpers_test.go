package wazeroengine

import (
	"testing"

	"github.com/codemode/codemode/runtime/internal/engine"
)

// newTestEngine returns an engine closed at the end of the test. The
// QuickJS artifact is embedded, so it is never missing.
func newTestEngine(t testing.TB, opts Options) *engine.Base {
	t.Helper()
	return newTestEngineWith(t, opts, nil)
}

// newTestEngineWith is newTestEngine with the filler reporting each pool
// change on filled.
func newTestEngineWith(t testing.TB, opts Options, filled chan<- struct{}) *engine.Base {
	t.Helper()
	e, err := newStopped(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.Filled = filled
	e.Start()
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}
