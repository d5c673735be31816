package gojaengine

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func newTestEngine(t testing.TB, opts Options) engine.Engine {
	t.Helper()
	e, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestConformance(t *testing.T) {
	enginetest.Run(t, func(t *testing.T) engine.Engine { return newTestEngine(t, Options{}) })
}

func BenchmarkEngine(b *testing.B) {
	enginetest.Bench(b, func(b *testing.B) engine.Engine { return newTestEngine(b, Options{}) })
}
