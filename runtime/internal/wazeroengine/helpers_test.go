package wazeroengine

import (
	"testing"
)

// newTestEngine returns an engine closed at the end of the test.
func newTestEngine(t testing.TB, opts Options) *Engine {
	t.Helper()
	return newTestEngineWith(t, opts, nil)
}

// newTestEngineWith is newTestEngine with the filler reporting each pool
// change on filled.
func newTestEngineWith(t testing.TB, opts Options, filled chan<- struct{}) *Engine {
	t.Helper()
	e, err := newStoppedEngine(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.filled = filled
	e.start()
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}
