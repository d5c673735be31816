package gojaengine

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
)

// regexpClock is regexp2's clock goroutine, which goja's regular
// expressions start (gojaengine sets a match timeout) and which ends by
// itself about two seconds after the last match.
var regexpClock = goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, regexpClock)
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
