package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools/errs"
)

// engines returns a runtime of each engine.
func engines(t *testing.T) map[string]*runtime.Runtime {
	t.Helper()
	out := map[string]*runtime.Runtime{}
	for _, name := range []string{runtime.EngineGoja, runtime.EngineWazero} {
		rt, err := runtime.New(runtime.Options{Engine: name, Limits: runtime.Limits{Timeout: 5 * time.Second, MemoryBytes: 64 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close() })
		out[name] = rt
	}
	return out
}

// echoCall is a nested-call function that echoes its arguments and counts
// calls in flight.
type echoCall struct {
	inFlight, maxInFlight atomic.Int64
	n                     atomic.Int64
}

func (c *echoCall) call(ctx context.Context, name string, args json.RawMessage) (string, json.RawMessage, error) {
	id := "p:ptc:" + string(rune('0'+c.n.Add(1)%10))
	if name == "missing" {
		return id, nil, errs.Errorf(errs.CodeUnknownTool, "unknown tool %q", name)
	}
	cur := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	for {
		m := c.maxInFlight.Load()
		if cur <= m || c.maxInFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	if name == "slow" {
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return id, nil, ctx.Err()
		}
	}
	return id, args, nil
}

func TestLimits(t *testing.T) {
	for name, rt := range engines(t) {
		t.Run(name, func(t *testing.T) {
			tests := []struct {
				name     string
				code     string
				limits   runtime.Limits
				wantCode errs.Code
				check    func(t *testing.T, out runtime.Outcome, c *echoCall)
			}{
				{name: "value and calls", code: `const r = await tools.echo({ a: 1 }); return r.a + 1`, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if string(out.Value) != "2" || len(out.Calls) != 1 || out.Calls[0].Name != "echo" || out.Calls[0].Code != "" {
						t.Errorf("got %s %+v", out.Value, out.Calls)
					}
				}},
				{name: "subcall limit", limits: runtime.Limits{MaxSubcalls: 5}, code: `for (let i = 0; i < 10; i++) await tools.echo({ i })`, wantCode: errs.CodeSubcallLimit},
				{name: "subcall limit is catchable", limits: runtime.Limits{MaxSubcalls: 2}, code: `let n = 0; for (let i = 0; i < 5; i++) { try { await tools.echo({}); n++ } catch (e) { if (e.code !== "SUBCALL_LIMIT") throw e } } return n`, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if string(out.Value) != "2" {
						t.Errorf("got %s, want 2", out.Value)
					}
				}},
				{name: "concurrency bound", limits: runtime.Limits{MaxConcurrentSubcalls: 3}, code: `await Promise.all(Array.from({ length: 12 }, () => tools.slow({}))); return "ok"`, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if m := c.maxInFlight.Load(); m > 3 || m < 2 {
						t.Errorf("max in flight %d, want 2..3", m)
					}
				}},
				// Each line costs its text plus 32 bytes: 42 each, so two fit in 100.
				{name: "log budget truncates", limits: runtime.Limits{MaxLogBytes: 100}, code: `for (let i = 0; i < 50; i++) console.log("0123456789"); return 1`, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if !out.LogsTruncated || len(out.Logs) != 3 || !strings.Contains(out.Logs[2].Text, "truncated") || string(out.Value) != "1" {
						t.Errorf("got %d logs, truncated %v", len(out.Logs), out.LogsTruncated)
					}
				}},
				{name: "empty lines spend the log budget", limits: runtime.Limits{MaxLogBytes: 1 << 10}, code: `for (let i = 0; i < 1e4; i++) console.log(); return 1`, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if !out.LogsTruncated || len(out.Logs) != 33 {
						t.Errorf("got %d logs, truncated %v; want 32 empty lines and the marker", len(out.Logs), out.LogsTruncated)
					}
				}},
				// Once the budget is spent a line is dropped before it is
				// formatted: the argument's valueOf is never called.
				{name: "a spent budget formats nothing", limits: runtime.Limits{MaxLogBytes: 100}, code: `let n = 0; const o = { valueOf() { n++; return 1 } }; console.log("x".repeat(200)); for (let i = 0; i < 5; i++) { console.log("%d", o); console.warn("%d", o) } return n`, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if !out.LogsTruncated || len(out.Logs) != 1 || string(out.Value) != "0" {
						t.Errorf("got %d logs, truncated %v, value %s; want the marker alone and 0", len(out.Logs), out.LogsTruncated, out.Value)
					}
				}},
				// Once the budget is spent wazero stops console's lines in the
				// wasm: a program's own method is still called, and a frozen
				// console drops its lines like any other.
				{name: "a program's console method outlives the budget", limits: runtime.Limits{MaxLogBytes: 100}, code: `let n = 0; console.log("x".repeat(200)); console.log("y"); console.log = () => n++; console.log("z"); const warn = console.warn; console.warn = (...a) => { n++; warn(...a) }; console.warn("w"); return n`, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if !out.LogsTruncated || len(out.Logs) != 1 || string(out.Value) != "2" {
						t.Errorf("got %d logs, truncated %v, value %s; want the marker alone and 2", len(out.Logs), out.LogsTruncated, out.Value)
					}
				}},
				{name: "a frozen console past the budget", limits: runtime.Limits{MaxLogBytes: 100}, code: `Object.freeze(console); console.log("x".repeat(200)); for (let i = 0; i < 5; i++) { console.log(i); console.error(i) } return Object.isFrozen(console)`, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if !out.LogsTruncated || len(out.Logs) != 1 || string(out.Value) != "true" {
						t.Errorf("got %d logs, truncated %v, value %s; want the marker alone and true", len(out.Logs), out.LogsTruncated, out.Value)
					}
				}},
				{name: "a huge error message is cut", limits: runtime.Limits{Timeout: 20 * time.Second}, code: `throw new Error("x".repeat(1e6))`, wantCode: errs.CodeRuntimeError, check: func(t *testing.T, out runtime.Outcome, c *echoCall) {
					if n := len(out.Err.Message); n > 9<<10 || !strings.Contains(out.Err.Message, "[cut: ") {
						t.Errorf("got a %d-byte message, want it cut near 8 KiB with a marker", n)
					}
					for k, v := range out.Err.Info {
						if s, ok := v.(string); ok && len(s) > 9<<10 {
							t.Errorf("Info[%q] is %d bytes", k, len(s))
						}
					}
				}},
				{name: "result budget", limits: runtime.Limits{MaxResultBytes: 1000}, code: `return "x".repeat(2000)`, wantCode: errs.CodeResultTooLarge},
				{name: "binding rejection keeps its code", code: `await tools.missing({})`, wantCode: errs.CodeUnknownTool},
				{name: "timeout cancels in-flight calls", limits: runtime.Limits{Timeout: 50 * time.Millisecond}, code: `while (true) await tools.slow({})`, wantCode: errs.CodeTimeout},
				{name: "syntax error", code: "return (", wantCode: errs.CodeSyntaxError},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					c := &echoCall{}
					out := rt.Run(context.Background(), runtime.Request{Code: tt.code, Tools: []string{"echo", "slow"}, Call: c.call, Limits: tt.limits})
					got := errs.Code("")
					if out.Err != nil {
						got = out.Err.Code
					}
					if got != tt.wantCode {
						t.Fatalf("got %q (%v), want %q", got, out.Err, tt.wantCode)
					}
					if tt.check != nil {
						tt.check(t, out, c)
					}
					if n := c.inFlight.Load(); n != 0 {
						t.Errorf("%d nested calls still in flight after the run", n)
					}
				})
			}
		})
	}
}

func TestPersistentEnvironments(t *testing.T) {
	for name, rt := range engines(t) {
		t.Run(name, func(t *testing.T) {
			host := scope.NewHost("h")
			defer host.Dispose()
			plugin := host.Child(scope.KindPlugin, "codemode")
			es := rt.NewEnvironments(plugin, runtime.EnvOptions{})
			agent := host.Child(scope.KindAgent, "a")
			o := es.Owner(agent, "codemode")
			steps := []struct {
				code, want string
				reset      bool
			}{
				{code: "let n = 1; const k = (10); const seen = new Map(); function inc() { seen.set(n, true); return ++n }", want: ""},
				{code: "return inc() + k + seen.size", want: "13"},
				{code: "let n = 100; return inc()", want: "101"},
				{code: "return typeof n", want: `"undefined"`, reset: true},
			}
			for i, s := range steps {
				if s.reset {
					es.Reset(o)
				}
				out := es.Run(context.Background(), o, runtime.Request{Code: s.code})
				if out.Err != nil {
					t.Fatalf("step %d: %v", i, out.Err)
				}
				if string(out.Value) != s.want {
					t.Fatalf("step %d: got %s, want %s", i, out.Value, s.want)
				}
			}
			// A broken environment is replaced, not reused, and the next run
			// says why. goja cannot stop a program without discarding its
			// runtime; QuickJS's interrupt leaves the environment usable.
			out := es.Run(context.Background(), o, runtime.Request{Code: "let keep = 1; while (true) {}", Limits: runtime.Limits{Timeout: 50 * time.Millisecond}})
			if out.Err == nil || out.Err.Code != errs.CodeTimeout {
				t.Fatalf("got %v, want TIMEOUT", out.Err)
			}
			wantType, wantCause := `"undefined"`, runtime.ResetTimeout
			if name == runtime.EngineWazero {
				wantType, wantCause = `"number"`, ""
			}
			out = es.Run(context.Background(), o, runtime.Request{Code: "return typeof keep"})
			if string(out.Value) != wantType || out.ResetCause != wantCause {
				t.Fatalf("after a timeout: got %s %v, reset cause %q", out.Value, out.Err, out.ResetCause)
			}
			if raceEnabled {
				agent.Dispose()
				return // filling the memory budget is too slow under the race detector
			}
			// Out of memory likewise, with its own cause.
			out = es.Run(context.Background(), o, runtime.Request{Code: "let keep = 1; const a = []; for (;;) a.push(\"x\".repeat(1 << 20) + a.length)"})
			if out.Err != nil && out.Err.Code == errs.CodeTimeout {
				t.Logf("timed out before it filled the memory budget (a starved machine)")
				agent.Dispose()
				return
			}
			if out.Err == nil || out.Err.Code != errs.CodeMemoryLimit {
				t.Fatalf("got %v, want MEMORY_LIMIT", out.Err)
			}
			wantCause = runtime.ResetMemory
			if name == runtime.EngineWazero {
				wantCause = "" // QuickJS's allocator fails the allocation; the instance lives on
			}
			if out := es.Run(context.Background(), o, runtime.Request{Code: "return typeof keep"}); out.ResetCause != wantCause {
				t.Fatalf("after running out of memory: got %s %v, reset cause %q", out.Value, out.Err, out.ResetCause)
			}
			agent.Dispose()
			if es.Len() != 0 {
				t.Fatalf("%d environments left after the agent ended", es.Len())
			}
		})
	}
}

func TestUnknownEngine(t *testing.T) {
	if _, err := runtime.New(runtime.Options{Engine: "v8"}); err == nil || !strings.Contains(err.Error(), "unknown engine") {
		t.Fatalf("got %v", err)
	}
	rt, err := runtime.New(runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt.Close()
	out := rt.Run(context.Background(), runtime.Request{Code: "return 1"})
	if out.Err == nil || !errors.Is(out.Err, runtime.ErrClosed) {
		t.Fatalf("run on a closed runtime: got %v", out.Err)
	}
}

// TestLimitFailuresReadTheSameOnEveryEngine: a failure one of the limits
// caused names the limit (and, for a timeout, what the program was
// waiting for) in one wording, whichever engine ran the program.
func TestLimitFailuresReadTheSameOnEveryEngine(t *testing.T) {
	rts := engines(t)
	blocking := func(ctx context.Context, name string, args json.RawMessage) (string, json.RawMessage, error) {
		<-ctx.Done()
		return "p:ptc:1", nil, ctx.Err()
	}
	tests := []struct {
		name     string
		code     string
		limits   runtime.Limits
		wantCode errs.Code
		want     string // the whole message
	}{
		{name: "busy loop", code: "for (;;) {}", limits: runtime.Limits{Timeout: 200 * time.Millisecond}, wantCode: errs.CodeTimeout,
			want: "the program ran out of time at its time limit of 200ms (set by timeoutMs; the server allows up to 5s); it was running its own code or waiting for its timers, not for any tool (a loop that does not end, a timer due after the deadline, or more work than one program can do in time). Do less per program: split the work over several code_run calls, or make fewer or faster calls"},
		{name: "a pending call", code: "await tools.slow({})", limits: runtime.Limits{Timeout: 200 * time.Millisecond}, wantCode: errs.CodeTimeout,
			want: `the program ran out of time at its time limit of 200ms (set by timeoutMs; the server allows up to 5s); it was waiting for tools["slow"] (nested call 1, started 0s into the program). Do less per program: split the work over several code_run calls, or make fewer or faster calls`},
		{name: "stack overflow", code: "function f() { return f() }\nf()", wantCode: errs.CodeStackOverflow,
			want: "the program recursed too deep: the engine's call stack overflowed (make the recursion a loop, or recurse less deeply)"},
		{name: "memory", code: "const a = []; for (;;) a.push(\"x\".repeat(1 << 20) + a.length)", wantCode: errs.CodeMemoryLimit,
			want: "the program exceeded its memory budget of 64 MiB: hold less at once (process results as they arrive, keep summaries rather than whole responses)"},
		{name: "never settles", code: "await new Promise(() => {})", wantCode: errs.CodeRuntimeError,
			want: "the program's promise can never settle: it awaits something that nothing will resolve (no tool call is in flight and no timer is pending)"},
	}
	for _, tt := range tests {
		for name, rt := range rts {
			if tt.wantCode == errs.CodeMemoryLimit && name == runtime.EngineGoja && raceEnabled {
				t.Logf("%s on goja: skipped under the race detector", tt.name)
				continue
			}
			out := rt.Run(context.Background(), runtime.Request{Code: tt.code, Limits: tt.limits, Tools: []string{"slow"}, Call: blocking})
			if tt.wantCode == errs.CodeMemoryLimit && out.Err != nil && out.Err.Code == errs.CodeTimeout {
				// goja's heap watchdog needs the GC to keep up; on a starved
				// machine the deadline can come first.
				t.Logf("%s on %s: timed out before it filled the memory budget", tt.name, name)
				continue
			}
			if out.Err == nil || out.Err.Code != tt.wantCode {
				t.Errorf("%s on %s: got %v, want %s", tt.name, name, out.Err, tt.wantCode)
				continue
			}
			got := out.Err.Message
			if tt.name == "a pending call" {
				// The start offset is a measurement: keep its shape only.
				got = regexp.MustCompile(`started [0-9.]+[µm]?s into`).ReplaceAllString(got, "started 0s into")
			}
			if got != tt.want {
				t.Errorf("%s on %s:\ngot  %s\nwant %s", tt.name, name, got, tt.want)
			}
		}
	}
}
