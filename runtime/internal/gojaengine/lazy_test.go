package gojaengine

import (
	"context"
	"strings"
	"testing"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
)

// TestLazyGlobals: the globals a goja runtime builds on first touch
// (vm.go's lazyNames) look to a program as if defined at setup.
func TestLazyGlobals(t *testing.T) {
	eng, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	withheld := `"require() is not available in code_run programs: modules cannot be loaded; call a tool instead: await tools[\"name\"](args) (list them with await tools.code_tools_list({}))"`
	for _, c := range []struct{ src, want string }{
		{`return [typeof setTimeout, "fetch" in globalThis, Object.getOwnPropertyNames(globalThis).includes("setInterval"), String(setTimeout), setTimeout.name, setTimeout.length]`,
			`["function",true,true,"function setTimeout() { [native code] }","setTimeout",2]`},
		{`try { globalThis["req" + "uire"]("x") } catch (e) { return e.message }`, withheld},
		{`try { require("x") } catch (e) { return e.message }`, withheld},
		{`delete globalThis.setTimeout; return typeof setTimeout`, `"undefined"`},
		{`globalThis.setTimeout = 5; return setTimeout`, `5`},
		{`return await new Promise(r => setTimeout(() => r("fired"), 5))`, `"fired"`},
		{`const d = Object.getOwnPropertyDescriptor(globalThis, "clearTimeout"); return [typeof d.value, d.writable, d.enumerable, d.configurable]`, `["function",true,false,true]`},
		{`return Object.keys(globalThis)`, `[]`},
		{`return eval("typeof clearInterval")`, `"function"`},
		{`return typeof setTimeout`, `"function"`}, // a new environment: the deletion above stayed in its own
	} {
		o := enginetest.Exec(t, eng, c.src, enginetest.ExecOptions{})
		if o.Err != nil || string(o.Value) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.src, o.Value, o.Err, c.want)
		}
	}
	// A persistent environment's globals, listed from Go between runs
	// (which builds the lazy ones): only the program's.
	env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if o := enginetest.Exec(t, eng, `globalThis.mine = 1; return typeof fetch`, enginetest.ExecOptions{Env: env}); o.Err != nil || string(o.Value) != `"function"` {
		t.Fatalf("got %s, %v", o.Value, o.Err)
	}
	if got := env.Globals(); len(got) != 1 || got[0] != "mine" {
		t.Errorf("globals: %v, want [mine]", got)
	}
	if o := enginetest.Exec(t, eng, `return [typeof setInterval, typeof clearTimeout, mine]`, enginetest.ExecOptions{Env: env}); o.Err != nil || string(o.Value) != `["function","function",1]` {
		t.Errorf("after listing: got %s, %v", o.Value, o.Err)
	}
}

// TestFunctionGate: the Function constructors check their text through
// goja's hook, and are otherwise the intrinsics themselves.
func TestFunctionGate(t *testing.T) {
	eng, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	deep := `"(".repeat(5000) + "1" + ")".repeat(5000)`
	for _, c := range []struct{ src, want string }{
		{`return [Function.prototype.constructor === Function, Function.name, Function.length, new Function("a", "b", "return a + b")(1, 2)]`, `[true,"Function",1,3]`},
		{`const G = Object.getPrototypeOf(function*(){}).constructor; return [G.name, [...new G("yield 1; yield 2")()].join()]`, `["GeneratorFunction","1,2"]`},
		{`const A = Object.getPrototypeOf(async function(){}).constructor; return [A.name, await new A("return 7")()]`, `["AsyncFunction",7]`},
		{`try { Function("return " + ` + deep + `) } catch (e) { return [e.name, e.message.slice(0, 42)] }`, `["RangeError","Maximum call stack size exceeded: Function"]`},
		{`const G = Object.getPrototypeOf(function*(){}).constructor; try { G("return " + ` + deep + `) } catch (e) { return [e.name, e.message.slice(0, 51)] }`, `["RangeError","Maximum call stack size exceeded: GeneratorFunction"]`},
		{`try { Function("return )") } catch (e) { return e.name }`, `"SyntaxError"`},
	} {
		o := enginetest.Exec(t, eng, c.src, enginetest.ExecOptions{})
		if o.Err != nil || string(o.Value) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.src, o.Value, o.Err, c.want)
		}
	}
}

// TestLazyArrayMethods: the guards and checks a goja runtime makes on
// Array.prototype's first touch of a method (vm.go's lazyArrayNames) look
// to a program as if installed at setup, whichever is touched first.
func TestLazyArrayMethods(t *testing.T) {
	eng, err := New(Options{MemoryLimit: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, c := range []struct{ src, want string }{
		{`return [Array.prototype[Symbol.iterator] === Array.prototype.values, String(Array.prototype.map), Array.prototype.map.name, Array.prototype.map.length, Array.prototype.toSpliced.length]`,
			`[true,"function map() { [native code] }","map",1,2]`},
		{`const it = Array.prototype[Symbol.iterator]; return [it === Array.prototype.values, it.name]`, `[true,"values"]`},
		{`const d = Object.getOwnPropertyDescriptor(Array.prototype, "sort"); return [typeof d.value, d.writable, d.enumerable, d.configurable, "prototype" in d.value]`, `["function",true,false,true,false]`},
		{`return [Object.getOwnPropertyNames(Array.prototype).includes("includes"), Object.keys(Array.prototype).length]`, `[true,0]`},
		{`delete Array.prototype.map; return typeof [].map`, `"undefined"`},
		{`return typeof [].map`, `"function"`}, // a new runtime
		{`Array.prototype.values = function () { return [][Symbol.iterator].call(["x"]) }; return [...[1, 2]]`, `[1,2]`},
		{`return [[3, 1, 2].sort(), [1, 2, 3].map(x => x * 2), [1, 2].includes(2), [1, 2].indexOf(2), [..."ab"].entries().next().value, [1, 2].toSorted((a, b) => b - a), [0, 0].fill(7)]`,
			`[[1,2,3],[2,4,6],true,1,[0,"a"],[2,1],[7,7]]`},
		{`const a = []; a.length = 2 ** 32 - 1; try { a.sort(); return "sorted" } catch (e) { return e.name }`, `"RangeError"`},
		{`try { Array.prototype.fill.call({ length: 2 ** 53 - 1 }, 0); return "filled" } catch (e) { return e.name }`, `"RangeError"`},
		{`return Array.prototype.lastIndexOf.call({ length: 2 ** 53 - 1, [2 ** 53 - 2]: "x" }, "x")`, `9007199254740990`},
		{`return Array.from(new Set([1, 2, 2]))`, `[1,2]`},
	} {
		o := enginetest.Exec(t, eng, c.src, enginetest.ExecOptions{})
		if o.Err != nil || string(o.Value) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.src, o.Value, o.Err, c.want)
		}
	}
}

// TestWeakIntrinsics: the weak collections the prelude marks its errors
// with are made on first use from the realm's intrinsics (glue.js's
// hostIntrinsic), so a program that replaced them first changes nothing.
func TestWeakIntrinsics(t *testing.T) {
	eng, err := New(Options{MemoryLimit: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sabotage := `WeakSet.prototype.add = WeakSet.prototype.has = WeakMap.prototype.get = WeakMap.prototype.set = function () { throw new Error("replaced") }; globalThis.WeakSet = globalThis.WeakMap = null;`
	for _, c := range []struct{ src, code string }{
		{sabotage + `const a = []; a.length = 2 ** 32 - 1; a.sort()`, "MEMORY_LIMIT"},
		{sabotage + `await tools.no_such_tool({})`, "UNKNOWN_TOOL"},
	} {
		o := enginetest.Exec(t, eng, c.src, enginetest.ExecOptions{})
		if o.Err == nil || string(o.Err.Code) != c.code {
			t.Errorf("%s: got %s, %v; want %s", c.src, o.Value, o.Err, c.code)
		}
	}
}

// TestLateIntrinsics: the built-ins the prelude uses only in what it makes
// on first use (Object's methods but defineProperty, Array, JSON.parse,
// Reflect, Symbol.iterator, the error constructors it throws with, Proxy,
// Promise, the two toString methods: common.js's lateLoad) are taken from the realm when first needed, so a program that
// replaced the globals first changes nothing: each path that needs one
// throws the realm's own errors, and the values are what they were when
// the prelude captured them at setup.
func TestLateIntrinsics(t *testing.T) {
	eng, err := New(Options{MemoryLimit: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	// (The engine's first runtime answers its probe of the features it
	// lacks, polyfill("?"), which loads them all.)
	enginetest.Exec(t, eng, `return 0`, enginetest.ExecOptions{})
	const keep = `const E = Error, RE = RangeError, TE = TypeError, AP = Array.prototype, SI = Symbol.iterator;`
	const sabotage = keep + ` globalThis.Error = globalThis.RangeError = globalThis.TypeError = globalThis.Proxy = globalThis.Promise = globalThis.Reflect = null;
Object.prototype.toString = () => "[object Error]"; E.prototype.toString = () => "replaced";
Object.keys = Object.getOwnPropertyDescriptor = Object.getPrototypeOf = Object.setPrototypeOf = Array.isArray = JSON.parse = () => { throw new E("replaced") };
globalThis.Array = globalThis.Symbol = null;`
	for _, c := range []struct{ name, src, want string }{
		{"queueMicrotask", sabotage + `try { queueMicrotask(5) } catch (e) { return [e instanceof TE, e.name, e.message] }`,
			`[true,"TypeError","queueMicrotask: the callback must be a function"]`},
		{"setTimeout", sabotage + `try { setTimeout(5) } catch (e) { return [e instanceof TE, e.message] }`,
			`[true,"setTimeout: the callback must be a function"]`},
		{"withheld", sabotage + `try { fetch("x") } catch (e) { return [e instanceof E, e.message.slice(0, 20)] }`,
			`[true,"fetch() is not avail"]`},
		{"size refusal", sabotage + `const a = []; a.length = 2 ** 32 - 1; try { a.sort() } catch (e) { return [e instanceof RE, e.name] }`,
			`[true,"RangeError"]`},
		{"guard on an array-like", sabotage + `const o = AP.sort.call({ get length() { return 2 }, 0: "b", 1: "a" }); return [o[0], o[1]]`,
			`["a","b"]`},
		{"typed array from an iterable", sabotage + `try { new Uint8Array({ [SI]: 5 }) } catch (e) { return [e instanceof TE, e.message] }`,
			`[true,"Symbol.iterator is not a function"]`},
		{"binding error", sabotage + `try { await tools.anything({ n: 1n }) } catch (e) { return [e instanceof E, e.code] }`,
			`[true,"INVALID_ARGUMENTS"]`},
		{"web", sabotage + `try { new TextDecoder().decode(5) } catch (e) { return e instanceof TE }`, `true`},
	} {
		o := enginetest.Exec(t, eng, c.src, enginetest.ExecOptions{})
		if o.Err != nil || string(o.Value) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.name, o.Value, o.Err, c.want)
		}
	}
	// What the prelude classifies with the captured built-ins: a thrown
	// error (describe), a logged one and a logged object (console's
	// format: Error.prototype.toString, Object.prototype.toString).
	o := enginetest.Exec(t, eng, sabotage+`throw new RE("late")`, enginetest.ExecOptions{})
	if o.Err == nil || !strings.Contains(o.Err.Message, "RangeError: late") {
		t.Errorf("thrown: got %s, %v; want RangeError: late", o.Value, o.Err)
	}
	o = enginetest.Exec(t, eng, sabotage+`console.log("plain", "strings"); console.log(new E("logged"), 1); console.log({ a: 1 }, [2]); console.dir({ b: 2 }); return [String(console.log), String(console.dir), console.trace === console.debug, console.table === console.dir]`, enginetest.ExecOptions{})
	if o.Err != nil || len(o.Logs) != 4 || !strings.HasSuffix(o.Logs[0], "plain strings") || !strings.Contains(o.Logs[1], "Error: logged") || !strings.Contains(o.Logs[2], "{ a: 1 } [ 2 ]") || !strings.HasSuffix(o.Logs[3], "{ b: 2 }") ||
		string(o.Value) != `["function log() { [native code] }","function dir() { [native code] }",true,true]` {
		t.Errorf("logged: got %q, %s, %v", o.Logs, o.Value, o.Err)
	}
	// A persistent environment's globals, listed after a program replaced
	// Object.keys (the prelude's globals()).
	env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if o := enginetest.Exec(t, eng, sabotage+`globalThis.mine = 1; return 0`, enginetest.ExecOptions{Env: env}); o.Err != nil {
		t.Fatalf("persistent: %v", o.Err)
	}
	if got := strings.Join(env.Globals(), ","); got != "AP,E,RE,SI,TE,mine" {
		t.Errorf("globals: %s, want AP,E,RE,SI,TE,mine", got)
	}
	env2, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env2.Close()
	if o := enginetest.Exec(t, eng, `globalThis.mine = 1; Object.keys = () => { throw 1 }; return 0`, enginetest.ExecOptions{Env: env2}); o.Err != nil {
		t.Fatalf("persistent: %v", o.Err)
	}
	if got := strings.Join(env2.Globals(), ","); got != "mine" {
		t.Errorf("globals: %s, want mine", got)
	}
}

// TestCheckingEval: the global eval is the sandbox's checking eval, made
// when a program first touches it (goja's eval is a replaced entry of the
// global object's template): it looks as the built-in did when it was
// installed at setup, whichever way it is reached first.
func TestCheckingEval(t *testing.T) {
	eng, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	names := `Object.getOwnPropertyNames(globalThis).join()`
	list := enginetest.Exec(t, eng, `return `+names, enginetest.ExecOptions{})
	if list.Err != nil || !strings.Contains(string(list.Value), ",eval,") {
		t.Fatalf("globals: %s, %v", list.Value, list.Err)
	}
	deep := `"(".repeat(5000) + "1" + ")".repeat(5000)`
	for _, c := range []struct{ src, want string }{
		{`typeof eval; return ` + names, string(list.Value)},
		{`typeof setTimeout; return ` + names, string(list.Value)},
		{`const d = Object.getOwnPropertyDescriptor(globalThis, "eval"); return [typeof d.value, d.writable, d.enumerable, d.configurable, d.value === eval, eval === globalThis.eval]`,
			`["function",true,false,true,true,true]`},
		{`return [String(eval), eval.name, eval.length, "prototype" in eval, Object.keys(globalThis).length]`, `["function eval() { [native code] }","eval",1,false,0]`},
		{`return eval("1 + 1")`, `2`},
		{`return (function () { var local = 1; return eval("typeof local") })()`, `"undefined"`}, // indirect, as before
		{`try { eval(` + deep + `) } catch (e) { return [e.name, e.message.slice(0, 38)] }`, `["RangeError","Maximum call stack size exceeded: eval"]`},
		{`globalThis.eval = null; globalThis.SyntaxError = null; return [typeof eval, Function("return 3")()]`, `["object",3]`},
		{`delete globalThis.eval; return typeof eval`, `"undefined"`},
		{`return eval(5)`, `5`},
	} {
		o := enginetest.Exec(t, eng, c.src, enginetest.ExecOptions{})
		if o.Err != nil || string(o.Value) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.src, o.Value, o.Err, c.want)
		}
	}
}
