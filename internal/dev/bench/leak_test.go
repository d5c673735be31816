package bench

import (
	"context"
	"testing"

	"go.uber.org/goleak"
)

// TestNoLeak: every row's target is closed, persistent environments
// included, so a run leaves no goroutine behind.
func TestNoLeak(t *testing.T) {
	// regexp2's clock goroutine (goja's regular expressions) ends by itself
	// about two seconds after the last match.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
	w, _ := Lookup("repl1k")
	rep, err := Run(context.Background(), Options{Workloads: []*Workload{w}, N: 2, Warmup: 1, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed() {
		t.Fatalf("rows failed: %+v", rep.Rows)
	}
}
