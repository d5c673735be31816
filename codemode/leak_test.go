package codemode

import (
	"context"
	"testing"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
	"go.uber.org/goleak"
)

// TestNoLeakOnShutdown: mounting code mode, running programs in both modes
// (with nested calls and a timeout) and closing the host leaves no
// goroutine behind: pools, VM goroutines, sweepers and nested calls all
// stop with their scopes.
func TestNoLeakOnShutdown(t *testing.T) {
	defer goleak.VerifyNone(t, regexpClock)
	for _, mode := range []runtime.Mode{runtime.ModePerCall, runtime.ModePersistent} {
		w := newWorld(t, false, Options{Mode: mode})
		codeRun(t, w, w.agent, `return (await tools.mcp__fake__ticker({ q: "A" })).tool`)
		codeRun(t, w, w.agent, `await Promise.all([1, 2, 3].map((i) => tools.mcp__fake__echo({ q: String(i) })))`)
		res := w.host.Registry.Execute(context.Background(), tools.Input{CallID: "t", Name: ToolCodeRun, Arguments: map[string]any{"code": "while (true) {}", "timeoutMs": 100}, Agent: w.agent})
		if res.Err == nil || res.Err.Code != errs.CodeTimeout {
			t.Fatalf("%s: got %q, want TIMEOUT", mode, res.TextOf())
		}
		if err := w.host.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// regexpClock is regexp2's clock goroutine, which goja's regular
// expressions start (gojaengine sets a match timeout) and which ends by
// itself about two seconds after the last match.
var regexpClock = goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock")
