package enginetest

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/source"
	"github.com/codemode/codemode/tools/errs"
)

// The cases below need Go to check them (a stack's frames, elapsed time,
// a program built by Go); the rest of the suite is in testdata/ (see
// data.go). Each runs in the group of the same name.

var logCases = []Case{
	{
		Name: "cyclic value logs",
		Code: "const a = {x: 1}; a.self = a; console.log(a)",
		Check: func(t *testing.T, o *Outcome) {
			if len(o.Logs) != 1 || !strings.Contains(o.Logs[0], "Circular") {
				t.Errorf("got logs %q, want one line showing [Circular]", o.Logs)
			}
		},
	},
	{
		Name: "error logs with its message",
		Code: "console.error(new Error('boom'))",
		Check: func(t *testing.T, o *Outcome) {
			if len(o.Logs) != 1 || !strings.HasPrefix(o.Logs[0], "error: Error: boom") {
				t.Errorf("got logs %q, want one line starting with \"error: Error: boom\"", o.Logs)
			}
		},
	},
}

var errorCases = []Case{
	{Name: "throw", Code: "throw new Error('boom')", WantCode: errs.CodeRuntimeError, WantMsg: "Error: boom", WantLine: 1, Check: func(t *testing.T, o *Outcome) {
		if s, _ := o.Err.Info["stack"].(string); !strings.Contains(s, ScriptName+":1:") {
			t.Errorf("got stack %q, want a frame at %s:1", s, ScriptName)
		}
	}},
	{Name: "never settles", Code: "await new Promise(() => {})", WantCode: errs.CodeRuntimeError, WantMsg: "never settle", Timeout: 30 * time.Second, Check: func(t *testing.T, o *Outcome) {
		if o.Elapsed > 5*time.Second {
			t.Errorf("took %v; a promise with nothing in flight must fail at once", o.Elapsed)
		}
	}},
}

var hostileCases = []Case{
	// Parsing is recursive: a deep program must be refused before any
	// parser recurses (a Go stack overflow kills the process).
	{Name: "300k nested brackets", Code: "return " + strings.Repeat("[", 300000) + strings.Repeat("]", 300000), WantCode: errs.CodeNestingTooDeep, Hostile: true},
	{Name: "chained arrows", Code: "return " + strings.Repeat("a=>", 100000) + "1", WantCode: errs.CodeNestingTooDeep, Hostile: true},
	{Name: "huge log", Code: "for (let i = 0; i < 100000; i++) console.log('line ' + i)\nreturn 'done'", Want: "done", Hostile: true, Timeout: 20 * time.Second, Check: func(t *testing.T, o *Outcome) {
		if n := o.Tools.LogCount(); n != 100000 {
			t.Errorf("got %d log lines, want 100000", n)
		}
	}},
}

// goCases are the cases in Go, by group.
var goCases = map[string][]Case{"logs": logCases, "errors": errorCases, "hostile": hostileCases}

var scenarios = []Scenario{
	{Name: "let redeclared", Steps: []Step{
		{Code: "let x = 1; return x", Want: 1, WantGlobals: []string{"x"}},
		{Code: "let x = 2; return x", Want: 2},
		{Code: "return x", Want: 2},
		{Code: "let x; return x", Want: nil},
	}},
	{Name: "const", Steps: []Step{
		{Code: "const c = 1", WantGlobals: []string{"c"}},
		{Code: "return c", Want: 1},
		{Code: "const c = 5; return c", Want: 5},
	}},
	{Name: "functions bind late", Steps: []Step{
		{Code: "function f() { return 1 }\nfunction g() { return f() }", WantGlobals: []string{"f", "g"}},
		{Code: "return g()", Want: 1},
		{Code: "function f() { return 2 }", Want: nil},
		{Code: "return g()", Want: 2},
	}},
	{Name: "function hoisting", Steps: []Step{
		{Code: "return h()\nfunction h() { return 'hoisted' }", Want: "hoisted"},
		{Code: "return h()", Want: "hoisted"},
		{Code: "const v = await k(3)\nreturn v\nasync function k(n) { return (await tools.echo({n})).n * 2 }", Want: 6},
	}},
	{Name: "class", Steps: []Step{
		{Code: "class A { m() { return 7 } }", WantGlobals: []string{"A"}},
		{Code: "return new A().m()", Want: 7},
		{Code: "class A { m() { return 8 } }\nreturn new A().m()", Want: 8},
	}},
	{Name: "destructuring", Steps: []Step{
		{Code: "const {a, b: [c], ...rest} = {a: 1, b: [2], d: 4}\nlet [p, , q = 9] = [5, 6]", WantGlobals: []string{"a", "c", "rest", "p", "q"}},
		{Code: "return [a, c, rest, p, q]", Want: []any{1, 2, map[string]any{"d": 4}, 5, 9}},
	}},
	{Name: "top-level await", Steps: []Step{
		{Code: "const v = await tools.echo({v: 1})"},
		{Code: "return v", Want: map[string]any{"v": 1}},
	}},
	{Name: "var in loops", Steps: []Step{
		{Code: "for (var i = 0; i < 3; i++) {}\nfor (var k of ['a', 'b']) {}\nif (true) var z = 'z'"},
		{Code: "return [i, k, z]", Want: []any{3, "b", "z"}},
	}},
	{Name: "block scope untouched", Steps: []Step{
		{Code: "{ let inner = 1; const c2 = 2 }\nfor (let j = 0; j < 1; j++) {}"},
		{Code: "return [typeof inner, typeof c2, typeof j]", Want: []any{"undefined", "undefined", "undefined"}},
	}},
	{Name: "declarations survive a throw", Steps: []Step{
		{Code: "let kept = 1\nthrow new Error('x')", WantCode: errs.CodeRuntimeError},
		{Code: "return kept", Want: 1},
	}},
	{Name: "state across runs", Steps: []Step{
		{Code: "const records = []\nfor (let i = 0; i < 1000; i++) records.push({id: i, even: i % 2 === 0})"},
		{Code: "return records.filter(r => r.even).length", Want: 500},
		{Code: "records.push({id: 1000, even: true}); return records.length", Want: 1001},
	}},
	{Name: "typescript", Steps: []Step{
		{Code: "const n: number = 3\nfunction sq(x: number): number { return x * x }", WantGlobals: []string{"n", "sq"}},
		{Code: "return sq(n)", Want: 9},
	}},
	// Globals() lists what a program added as enumerable own properties of
	// the global object (both engines list the same).
	{Name: "globals listed", Steps: []Step{
		{Code: "globalThis.shown = 1\n;(0, eval)('var viaEval = 2')\nsloppy = 3\nObject.defineProperty(globalThis, 'hidden', { value: 4 })\nreturn hidden",
			Want: 4, WantGlobals: []string{"shown", "viaEval", "sloppy"}, WantNoGlobals: []string{"hidden", "__cm_k"}},
		// Inherited is not own: an enumerable property on Object.prototype
		// (which for-in over the global object visits) is not a global.
		{Code: "Object.prototype.inherited = 5\nglobalThis.own = 6\nreturn own + inherited",
			Want: 11, WantGlobals: []string{"shown", "own"}, WantNoGlobals: []string{"inherited"}},
	}},
	{Name: "use strict", Steps: []Step{
		{Code: "'use strict'\nlet s = 1\nfunction sf() { return this === undefined }"},
		{Code: "return [s, sf()]", Want: []any{1, true}},
	}},
}

var specialTests = []struct {
	name string
	f    func(t *testing.T, eng engine.Engine)
}{
	{"in-flight calls are cancelled when the program ends", func(t *testing.T, eng engine.Engine) {
		ft := NewFakeTools()
		o := Exec(t, eng, "tools.slow({})\nreturn 1", ExecOptions{Tools: ft})
		if o.Err != nil || string(o.Value) != "1" {
			t.Fatalf("got %s, %v; want 1", o.Value, o.Err)
		}
		err, werr := recv(ft.SlowEnded, 5*time.Second)
		if werr != nil || err == nil {
			t.Errorf("slow call: got ctx error %v (%v), want cancelled", err, werr)
		}
	}},
	{"in-flight calls are cancelled at the deadline", func(t *testing.T, eng engine.Engine) {
		ft := NewFakeTools()
		o := Exec(t, eng, "await tools.slow({})", ExecOptions{Tools: ft, Timeout: 200 * time.Millisecond})
		if o.Err == nil || o.Err.Code != errs.CodeTimeout {
			t.Fatalf("got %s, %v; want TIMEOUT", o.Value, o.Err)
		}
		if _, werr := recv(ft.SlowEnded, 5*time.Second); werr != nil {
			t.Errorf("slow call was not cancelled: %v", werr)
		}
	}},
	{"a tool that ignores cancellation does not hold the run", func(t *testing.T, eng engine.Engine) {
		for _, code := range []string{
			"await tools.stubborn({})",                                    // awaited alone
			"await Promise.all([tools.stubborn({}), tools.stubborn({})])", // concurrent
			"await globalThis['to' + 'ols'].stubborn({})",                 // the name not in the source
		} {
			ft := NewFakeTools()
			const limit = 200 * time.Millisecond
			o := Exec(t, eng, code, ExecOptions{Tools: ft, Timeout: limit})
			if o.Err == nil || o.Err.Code != errs.CodeTimeout {
				t.Fatalf("%s: got %s, %v; want TIMEOUT", code, o.Value, o.Err)
			}
			if o.Elapsed > limit+Grace || o.Elapsed >= StubbornFor {
				t.Errorf("%s: took %v, want at most %v and less than the tool's %v", code, o.Elapsed, limit+Grace, StubbornFor)
			}
			if o := Exec(t, eng, "return await tools.echo({ok: 1})", ExecOptions{Tools: ft}); o.Err != nil || string(o.Value) != `{"ok":1}` {
				t.Errorf("next program: got %s, %v", o.Value, o.Err)
			}
		}
		// Through a function an earlier run of a persistent environment
		// defined: this run's source does not name `tools`.
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		ft := NewFakeTools()
		Exec(t, eng, "async function late() { return await tools.stubborn({}) }", ExecOptions{Env: env, Tools: ft})
		const limit = 200 * time.Millisecond
		if o := Exec(t, eng, "return await late()", ExecOptions{Env: env, Tools: ft, Timeout: limit}); o.Err == nil || o.Err.Code != errs.CodeTimeout || o.Elapsed > limit+Grace {
			t.Errorf("through an earlier run's function: got %s, %v in %v; want TIMEOUT within %v", o.Value, o.Err, o.Elapsed, limit+Grace)
		}
		time.Sleep(StubbornFor) // let the stubborn calls end before leak checks
	}},
	{"stacks show the user's lines", func(t *testing.T, eng engine.Engine) {
		for _, code := range []string{
			"console.log(new Error('boom'))\nreturn 1",
			"const n: number = 1\nconsole.log(new Error('boom'))\nreturn n",
		} {
			o := Exec(t, eng, code, ExecOptions{})
			if o.Err != nil || len(o.Logs) != 1 {
				t.Fatalf("%q: got %v, logs %q", code, o.Err, o.Logs)
			}
			wantLine := strings.Count(code[:strings.Index(code, "console")], "\n") + 1
			if log := o.Logs[0]; !strings.HasPrefix(log, "log: Error: boom\n") || !regexp.MustCompile(`program\.(js|ts):`+strconv.Itoa(wantLine)+`:`).MatchString(log) || strings.HasSuffix(log, "\n") {
				t.Errorf("%q: logged %q, want the stack to point at line %d and no trailing newline", code, log, wantLine)
			}
		}
		// An uncaught error's stack: the user's lines, none of the wrapper's.
		code := "function f() { return null.x }\nreturn f()"
		o := Exec(t, eng, code, ExecOptions{})
		if o.Err == nil || o.Err.Code != errs.CodeRuntimeError {
			t.Fatalf("got %s, %v; want RUNTIME_ERROR", o.Value, o.Err)
		}
		stack, _ := o.Err.Info["stack"].(string)
		if !strings.Contains(stack, "program.js:1:") {
			t.Fatalf("stack %q does not point at line 1", stack)
		}
		for _, m := range regexp.MustCompile(`program\.js:(\d+)`).FindAllStringSubmatch(stack, -1) {
			if n, _ := strconv.Atoi(m[1]); n > 2 {
				t.Errorf("stack %q shows line %d of a 2-line program (the wrapper)", stack, n)
			}
		}
		// Errors raised by the sandbox's own code (a withheld global, a
		// guarded built-in) show the program's frames, not the prelude's.
		for _, code := range []string{"require('fs')", "[2, 1].sort(() => { throw new Error('cmp') })"} {
			o := Exec(t, eng, code, ExecOptions{})
			if o.Err == nil {
				t.Fatalf("%q: no error", code)
			}
			stack, _ := o.Err.Info["stack"].(string)
			if !strings.Contains(stack, "program.js:1:") || strings.Contains(stack, "codemode") {
				t.Errorf("%q: stack %q, want the program's frames only", code, stack)
			}
		}
	}},
	{"context cancellation", func(t *testing.T, eng engine.Engine) {
		s := mustPrepare(t, "for (;;) {}", false)
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		ctx, cancel := context.WithCancel(context.Background())
		ft := NewFakeTools()
		done := make(chan engine.Result, 1)
		go func() {
			done <- env.Run(ctx, &engine.Job{Script: s.JS, Name: ScriptName, LineOffset: s.LineOffset, Call: ft.Call, Log: func(string, string) {}, Deadline: time.Now().Add(time.Minute)})
		}()
		cancel()
		res, werr := recv(done, 5*time.Second)
		if werr != nil {
			t.Fatal("Run did not return after cancellation")
		}
		if res.Err == nil || res.Err.Code != errs.CodeCancelled {
			t.Errorf("got %v, want CANCELLED", res.Err)
		}
	}},
	{"close aborts a run", func(t *testing.T, eng engine.Engine) {
		s := mustPrepare(t, "console.log('started')\nfor (;;) {}", false)
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ft := NewFakeTools()
		started := make(chan struct{}, 1)
		done := make(chan engine.Result, 1)
		go func() {
			done <- env.Run(context.Background(), &engine.Job{Script: s.JS, Name: ScriptName, LineOffset: s.LineOffset, Call: ft.Call, Log: func(string, string) { started <- struct{}{} }, Deadline: time.Now().Add(time.Minute)})
		}()
		if _, werr := recv(started, 5*time.Second); werr != nil {
			t.Fatal("program did not start")
		}
		env.Close()
		res, werr := recv(done, 5*time.Second)
		if werr != nil {
			t.Fatal("Run did not return after Close")
		}
		if res.Err == nil {
			t.Errorf("got value %s, want an error", res.Value)
		}
		if env.Usable() {
			t.Error("environment usable after Close")
		}
	}},
	{"per-call environment runs one program", func(t *testing.T, eng engine.Engine) {
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		o := Exec(t, eng, "globalThis.leaked = 1; return 1", ExecOptions{Env: env})
		if o.Err != nil {
			t.Fatalf("got %v", o.Err)
		}
		if env.Usable() {
			t.Error("per-call environment still usable after its program")
		}
		if o := Exec(t, eng, "return typeof leaked", ExecOptions{}); string(o.Value) != `"undefined"` {
			t.Errorf("fresh environment sees %s, want \"undefined\"", o.Value)
		}
	}},
	{"a persistent environment's tools follow each run's list", func(t *testing.T, eng engine.Engine) {
		// What tools answers for a name (a binding, Object.prototype's
		// member, undefined) is the run's: a name an earlier run read is
		// not kept into a run whose list differs.
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		const code = "const c = tools.constructor, p = tools.__proto__, h = tools.hasOwnProperty\n" +
			"return [c === Object, typeof c, p === null, typeof p, h === Object.prototype.hasOwnProperty, Object.keys(tools).includes('constructor'), tools.echo === tools.echo, typeof tools.then]"
		listed := &FakeTools{Listed: []string{"constructor", "__proto__", "hasOwnProperty"}, barDone: make(chan struct{})}
		for i, run := range []struct {
			ft   *FakeTools
			want string
		}{
			{NewFakeTools(), `[true,"function",true,"object",true,false,true,"undefined"]`},
			{listed, `[false,"function",false,"function",false,true,true,"undefined"]`},
			{NewFakeTools(), `[true,"function",true,"object",true,false,true,"undefined"]`},
			{listed, `[false,"function",false,"function",false,true,true,"undefined"]`},
		} {
			if o := Exec(t, eng, code, ExecOptions{Env: env, Tools: run.ft}); o.Err != nil || string(o.Value) != run.want {
				t.Errorf("run %d: got %s, %v; want %s", i+1, o.Value, o.Err, run.want)
			}
		}
	}},
	{"a persistent environment's tools cannot be reshaped", func(t *testing.T, eng engine.Engine) {
		// A run's attempts to change the tools object (its prototype,
		// its properties) fail, and leave nothing for the next run.
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		const change = "const p = { constructor: 1, echo: 2, injected: 3 }\n" +
			"try { Object.setPrototypeOf(tools, p) } catch (e) {}\n" +
			"try { Object.defineProperty(tools, 'injected', { value: 1 }) } catch (e) {}\n" +
			"try { tools.echo = 1; delete tools.echo } catch (e) {}\n" +
			"try { tools.__proto__ = p } catch (e) {}\n" +
			"return Object.getPrototypeOf(tools) === null"
		const check = "return [Object.getPrototypeOf(tools) === null, 'constructor' in tools, 'injected' in tools, typeof tools.injected, typeof tools.echo, (await tools.echo({a: 1})).a]"
		if o := Exec(t, eng, change, ExecOptions{Env: env}); o.Err != nil || string(o.Value) != "true" {
			t.Fatalf("changing tools: got %s, %v; want true", o.Value, o.Err)
		}
		if o := Exec(t, eng, check, ExecOptions{Env: env}); o.Err != nil || string(o.Value) != `[true,false,false,"function","function",1]` {
			t.Errorf("the next run: got %s, %v", o.Value, o.Err)
		}
	}},
	{"persistent environment survives a timeout", func(t *testing.T, eng engine.Engine) {
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		Exec(t, eng, "let before = 'kept'", ExecOptions{Env: env})
		o := Exec(t, eng, "for (;;) {}", ExecOptions{Env: env, Timeout: 200 * time.Millisecond})
		if o.Err == nil || o.Err.Code != errs.CodeTimeout {
			t.Fatalf("got %v, want TIMEOUT", o.Err)
		}
		if !env.Usable() {
			t.Skip("engine discards a persistent environment after a timeout")
		}
		if o := Exec(t, eng, "return before", ExecOptions{Env: env}); string(o.Value) != `"kept"` {
			t.Errorf("got %s, %v; want \"kept\"", o.Value, o.Err)
		}
	}},
	{"timers do not carry into the next run", func(t *testing.T, eng engine.Engine) {
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		o := Exec(t, eng, "var fired = []\nvar t = setTimeout(() => fired.push('timeout'), 30)\nvar iv = setInterval(() => fired.push('interval'), 1)\nawait new Promise(r => setTimeout(r, 10))\nreturn fired.length > 0", ExecOptions{Env: env})
		if o.Err != nil || string(o.Value) != "true" {
			t.Fatalf("first run: got %s, %v", o.Value, o.Err)
		}
		// The next run waits past both timers' times: neither fires again,
		// and clearing the last run's ids is harmless.
		o = Exec(t, eng, "const n = fired.length\nclearTimeout(t); clearInterval(iv)\nawait new Promise(r => setTimeout(r, 50))\nreturn [fired.length === n, fired.includes('timeout')]", ExecOptions{Env: env})
		if o.Err != nil || string(o.Value) != "[true,false]" {
			t.Errorf("next run: got %s, %v; want [true,false]", o.Value, o.Err)
		}
	}},
	{"a program waiting on a timer ends at its deadline", func(t *testing.T, eng engine.Engine) {
		o := Exec(t, eng, "await new Promise(r => setTimeout(r, 10000))", ExecOptions{Timeout: 200 * time.Millisecond})
		if o.Err == nil || o.Err.Code != errs.CodeTimeout {
			t.Fatalf("got %v, want TIMEOUT", o.Err)
		}
		if o.Elapsed < 190*time.Millisecond || o.Elapsed > 200*time.Millisecond+Grace {
			t.Errorf("ended after %v, want at the 200ms deadline", o.Elapsed)
		}
	}},
}

func mustPrepare(t *testing.T, code string, persistent bool) *source.Script {
	t.Helper()
	o, err := source.Prepare(code, source.Options{Persistent: persistent})
	if err != nil {
		t.Fatal(err)
	}
	return o
}
