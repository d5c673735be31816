package runtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools/errs"
)

// person is a nested call that waits like a person answering an approval:
// wait, holding the program's clock when hold is set, then answers.
func person(wait time.Duration, hold bool) runtime.CallFunc {
	return func(ctx context.Context, name string, args json.RawMessage) (string, json.RawMessage, error) {
		if hold {
			release := runtime.HoldDeadline(ctx)
			defer release()
		}
		select {
		case <-time.After(wait):
			return "p:ptc:1", json.RawMessage(`"yes"`), nil
		case <-ctx.Done():
			return "p:ptc:1", nil, errs.AsError(ctx.Err())
		}
	}
}

// TestHoldDeadline: time a nested call spends holding the clock (an
// approval waiting for a person) does not count against the program's
// timeout, on every engine; the program keeps the time it had left, and a
// timeout after a hold says how long was not counted.
func TestHoldDeadline(t *testing.T) {
	const timeout = 400 * time.Millisecond
	const wait = 1200 * time.Millisecond
	for name, rt := range engines(t) {
		t.Run(name, func(t *testing.T) {
			limits := runtime.Limits{Timeout: timeout}
			t.Run("held", func(t *testing.T) {
				out := rt.Run(context.Background(), runtime.Request{Code: `return await tools.ask({})`, Tools: []string{"ask"}, Call: person(wait, true), Limits: limits})
				if out.Err != nil || string(out.Value) != `"yes"` {
					t.Fatalf("got value %s, error %v; want \"yes\": the %s wait was held", out.Value, out.Err, wait)
				}
			})
			t.Run("concurrent holds", func(t *testing.T) {
				out := rt.Run(context.Background(), runtime.Request{Code: `return (await Promise.all([tools.ask({}), tools.ask({}), tools.ask({})])).length`, Tools: []string{"ask"}, Call: person(wait, true), Limits: limits})
				if out.Err != nil || string(out.Value) != `3` {
					t.Fatalf("got value %s, error %v; want 3", out.Value, out.Err)
				}
			})
			t.Run("not held", func(t *testing.T) {
				start := time.Now()
				out := rt.Run(context.Background(), runtime.Request{Code: `return await tools.ask({})`, Tools: []string{"ask"}, Call: person(wait, false), Limits: limits})
				if out.Err == nil || out.Err.Code != errs.CodeTimeout {
					t.Fatalf("got value %s, error %v; want TIMEOUT", out.Value, out.Err)
				}
				if el := time.Since(start); el >= wait {
					t.Errorf("the run took %s; want it stopped at its %s timeout", el, timeout)
				}
				if strings.Contains(out.Err.Message, "approval") {
					t.Errorf("message %q mentions approval, but nothing was held", out.Err.Message)
				}
			})
			t.Run("the rest of the time after a hold", func(t *testing.T) {
				start := time.Now()
				out := rt.Run(context.Background(), runtime.Request{Code: `await tools.ask({}); for (;;) {}`, Tools: []string{"ask"}, Call: person(wait, true), Limits: limits})
				el := time.Since(start)
				if out.Err == nil || out.Err.Code != errs.CodeTimeout {
					t.Fatalf("got value %s, error %v; want TIMEOUT", out.Value, out.Err)
				}
				if el < wait+timeout*3/4 {
					t.Errorf("the run took %s; want about %s held plus the %s timeout", el, wait, timeout)
				}
				if !strings.Contains(out.Err.Message, "not counting") || !strings.Contains(out.Err.Message, "waiting for approval") {
					t.Errorf("message %q: want it to say how long was spent waiting for approval", out.Err.Message)
				}
			})
		})
	}
}

// TestHoldDeadlineOutsideARun: a context without a program's clock has
// nothing to hold.
func TestHoldDeadlineOutsideARun(t *testing.T) {
	release := runtime.HoldDeadline(context.Background())
	release()
	release()
}

// TestCallSite: a nested call knows the line of the program that made it,
// and its text, on goja (TypeScript included: positions are the user's);
// the wazero engine does not record it yet, and says 0.
func TestCallSite(t *testing.T) {
	for name, rt := range engines(t) {
		t.Run(name, func(t *testing.T) {
			for _, code := range []string{
				"const a = 1;\nawait tools.x({});\nconst b: number = 2;\nawait Promise.all([1].map(() =>\n  tools.x({})));\nreturn 0",
			} {
				var mu sync.Mutex
				var got []string
				call := func(ctx context.Context, name string, args json.RawMessage) (string, json.RawMessage, error) {
					line, text := runtime.CallSite(ctx)
					mu.Lock()
					got = append(got, fmt.Sprintf("%d:%s", line, text))
					mu.Unlock()
					return "id", json.RawMessage(`1`), nil
				}
				out := rt.Run(context.Background(), runtime.Request{Code: code, Tools: []string{"x"}, Call: call})
				if out.Err != nil {
					t.Fatal(out.Err)
				}
				want := []string{"2:await tools.x({});", "5:  tools.x({})));"}
				if name == runtime.EngineWazero {
					want = []string{"0:", "0:"}
				}
				if strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("call sites %q, want %q", got, want)
				}
			}
		})
	}
}
