package codemode

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

func TestCodeRunResultShape(t *testing.T) {
	w := newWorld(t, false, Options{})
	res := codeRun(t, w, w.agent, `console.log("a"); console.warn("b"); return { n: 1 }`)
	if res.IsError {
		t.Fatal(res.TextOf())
	}
	if got, want := res.TextOf(), "a\n[warn] b\n{\"n\":1}"; got != want {
		t.Errorf("text: got %q, want %q", got, want)
	}
	if got, want := string(res.Value), `{"value":{"n":1},"logs":[{"level":"log","text":"a"},{"level":"warn","text":"b"}]}`; got != want {
		t.Errorf("structured: got %s, want %s", got, want)
	}
	res = codeRun(t, w, w.agent, "console.log('x');\nnull.f()")
	if !res.IsError || res.Err.Code != errs.CodeRuntimeError || !strings.HasPrefix(res.TextOf(), "x\nError: [RUNTIME_ERROR]") {
		t.Errorf("error: got %q", res.TextOf())
	}
	if logs, _ := json.Marshal(res.Err.Info["logs"]); string(logs) != `[{"level":"log","text":"x"}]` {
		t.Errorf("error logs: got %s", logs)
	}
	res = w.host.Registry.Execute(context.Background(), tools.Input{CallID: "t", Name: ToolCodeRun, Arguments: map[string]any{"code": "while(true){}", "timeoutMs": 50}, Agent: w.agent})
	if !res.IsError || res.Err.Code != errs.CodeTimeout {
		t.Errorf("timeoutMs: got %q", res.TextOf())
	}
	res = w.host.Registry.Execute(context.Background(), tools.Input{CallID: "n", Name: ToolCodeRun, Arguments: map[string]any{"code": `return await tools.code_run({ code: "return 1" })`}, Agent: w.agent})
	if !res.IsError || !strings.Contains(res.TextOf(), "cannot be called from inside a program") {
		t.Errorf("nested code_run: got %q", res.TextOf())
	}
}

func TestPersistentModeAndDebug(t *testing.T) {
	w := newWorld(t, false, Options{Mode: runtime.ModePersistent})
	steps := []struct {
		code  string
		reset bool
		want  string
	}{
		{code: "const quotes = []; async function add(q) { quotes.push(await tools.mcp__fake__ticker({ q })); return quotes.length }", want: ""},
		{code: "await add('A'); return await add('B')", want: "2"},
		{code: "return quotes.length", want: "2"},
		{code: "return typeof quotes", reset: true, want: `"undefined"`},
	}
	for i, s := range steps {
		args := map[string]any{"code": s.code}
		if s.reset {
			args["reset"] = true
		}
		res := w.host.Registry.Execute(context.Background(), tools.Input{CallID: "s", Name: ToolCodeRun, Arguments: args, Agent: w.agent})
		if res.IsError {
			t.Fatalf("step %d: %s", i, res.TextOf())
		}
		var out struct{ Value json.RawMessage }
		json.Unmarshal(res.Value, &out)
		if string(out.Value) != s.want {
			t.Fatalf("step %d: got %s, want %s", i, out.Value, s.want)
		}
	}
	// Another agent has its own environment.
	other, _ := w.host.NewAgent(w.preset, "agent-2")
	if v := value(t, codeRun(t, w, other, "return typeof add")); v != "undefined" {
		t.Fatalf("agent-2 sees agent-1's state: %v", v)
	}
	// code_debug: the last error with its source line, recent calls, globals.
	codeRun(t, w, w.agent, "const keep = 1;\nawait tools.mcp__fake__echo({ q: 'x' });\nundefinedFunction()")
	res := codeRun(t, w, w.agent, "return await tools.code_debug({})")
	dbg, _ := json.Marshal(value(t, res))
	for _, want := range []string{`"code":"RUNTIME_ERROR"`, `"sourceLine":"undefinedFunction()"`, `"name":"mcp__fake__echo"`, `"globals":[`, `"keep"`, `"mode":"persistent-in-memory"`} {
		if !strings.Contains(string(dbg), want) {
			t.Errorf("code_debug lacks %s: %s", want, dbg)
		}
	}
	// Disposing the agent releases its environment.
	before := w.plugin.Environments().Len()
	w.agent.Scope().Dispose()
	if after := w.plugin.Environments().Len(); after != before-1 {
		t.Errorf("environments: %d before the agent ended, %d after", before, after)
	}
}

// Nested calls run their tool bodies inline (tools.Input.Inline); a body
// that ignores cancellation must still not hold code_run past its deadline
// plus the engines' grace periods, nor break the next program.
func TestNestedBodyIgnoringCancellation(t *testing.T) {
	for _, mode := range []runtime.Mode{runtime.ModePerCall, runtime.ModePersistent} {
		t.Run(string(mode), func(t *testing.T) {
			w := newWorld(t, false, Options{Mode: mode})
			release := make(chan struct{})
			ended := make(chan struct{}, 2)
			var started atomic.Int32 // a loaded machine may time a program out before its call starts
			t.Cleanup(func() {
				close(release)
				for range started.Load() {
					<-ended
				}
			})
			if _, err := w.host.Registry.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__fake__stubborn", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
				started.Add(1)
				defer func() { ended <- struct{}{} }()
				<-release // ignores ctx
				return &tools.Result{Value: json.RawMessage(`"late"`)}, nil
			}}); err != nil {
				t.Fatal(err)
			}
			for _, code := range []string{
				"return await tools.mcp__fake__stubborn({})",
				"return await Promise.all([tools.mcp__fake__stubborn({}), tools.mcp__fake__ticker({})])",
			} {
				start := time.Now()
				res := w.host.Registry.Execute(context.Background(), tools.Input{CallID: "s", Name: ToolCodeRun, Arguments: map[string]any{"code": code, "timeoutMs": 100}, Agent: w.agent})
				took := time.Since(start)
				if !res.IsError || res.Err.Code != errs.CodeTimeout {
					t.Errorf("%s: got %q, want TIMEOUT", code, res.TextOf())
				}
				if took > 2*time.Second {
					t.Errorf("%s: code_run took %v with a 100 ms limit", code, took)
				}
				if res := codeRun(t, w, w.agent, "return 1 + 1"); res.IsError {
					t.Errorf("next program: %s", res.TextOf())
				}
			}
			if !strings.Contains(w.logs.String(), "ignores cancellation") {
				t.Errorf("no warning logged; logs:\n%s", w.logs)
			}
		})
	}
}
