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

var valueCases = []Case{
	{Name: "number", Code: "return 1 + 1", Want: 2},
	{Name: "object", Code: "return {a: [1, 'x', null], b: true, c: {d: 1.5}}", Want: map[string]any{"a": []any{1, "x", nil}, "b": true, "c": map[string]any{"d": 1.5}}},
	{Name: "no return", Code: "const x = 1", Want: nil},
	{Name: "undefined", Code: "return undefined", Want: nil},
	{Name: "unicode", Code: "return 'héllo ✓ 日本'", Want: "héllo ✓ 日本"},
	{Name: "top-level await", Code: "const x = await Promise.resolve(41)\nreturn x + 1", Want: 42},
	{Name: "date", Code: "return new Date(0)", Want: "1970-01-01T00:00:00.000Z"},
	{Name: "nested function dropped", Code: "return [1, () => 1, {f() {}}]", Want: []any{1, nil, map[string]any{}}},
	{Name: "NaN is null", Code: "return [NaN, Infinity]", Want: []any{nil, nil}},
	{Name: "use strict", Code: "'use strict'\nreturn (function () { return this === undefined })()", Want: true},
	{Name: "async functions", Code: "async function f(x) { await null; return x * 2 }\nreturn await Promise.all([f(1), f(2)])", Want: []any{2, 4}},
	{Name: "queueMicrotask", Code: "let n = 0\nqueueMicrotask(() => n++)\nawait null\nreturn n", Want: 1},
	{Name: "per-call globals do not leak", Code: "return typeof leaked", Want: "undefined"},
}

var logCases = []Case{
	{
		Name:     "levels in order",
		Code:     "console.log('a', 1, {b: 2}); console.info('i'); console.warn('w'); console.error('e'); console.debug('d'); return 1",
		Want:     1,
		WantLogs: []string{"log: a 1 { b: 2 }", "info: i", "warn: w", "error: e", "debug: d"},
	},
	{
		Name:     "interleaved with tool calls",
		Code:     "console.log(1); await tools.echo({}); console.log(2); await tools.noop(); console.log(3)",
		WantLogs: []string{"log: 1", "log: 2", "log: 3"},
	},
	{
		Name:     "formatting",
		Code:     "console.log([1, 'a', [2, [3]]], null, undefined, true, 'raw'); console.log('%s is %d', 'x', 5); console.log({k: 'v', 'a-b': 1n})",
		WantLogs: []string{"log: [ 1, 'a', [ 2, [ 3 ] ] ] null undefined true raw", "log: x is 5", "log: { k: 'v', 'a-b': 1n }"},
	},
	{
		Name: "streamed as it happens",
		Code: "console.log('before'); return await tools.seen({})",
		Want: []any{"log: before"},
	},
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

var tsCases = []Case{
	{Name: "annotations", Code: "const x: number = 41\ninterface A { b: string }\nreturn x + 1", Want: 42},
	{Name: "generics", Code: "function f<T>(a: T): T { return a }\nreturn f<string>('s')", Want: "s"},
	{Name: "as and await", Code: "const r = (await tools.echo({n: 1})) as {n: number}\nreturn r.n", Want: 1},
	{Name: "enum", Code: "enum Color { Red, Green }\nreturn Color.Green", Want: 1},
	{Name: "syntax error position", Code: "const x: number = 1\nconst y: string = ;", WantCode: errs.CodeSyntaxError, WantLine: 2},
	{Name: "runtime error line", Code: "const x: number = 1\n\nthrow new Error('ts boom')", WantCode: errs.CodeRuntimeError, WantMsg: "ts boom", WantLine: 3},
}

var syntaxCases = []Case{
	{Name: "position", Code: "let x = ;", WantCode: errs.CodeSyntaxError, WantLine: 1, WantColumn: 9},
	{Name: "later line", Code: "const a = 1\n\n  foo bar", WantCode: errs.CodeSyntaxError, WantLine: 3},
	{Name: "unterminated", Code: "return 1\nlet y = {", WantCode: errs.CodeSyntaxError, WantLine: 2},
	{Name: "early error from the evaluator", Code: "let a = 1\nlet a = 2", WantCode: errs.CodeSyntaxError, WantLine: 2},
	{Name: "escaping the wrapper", Code: "}); globalThis.escaped = 1; (async function(){", WantCode: errs.CodeSyntaxError},
	{Name: "dynamic import", Code: "const m = await import('fs')", WantCode: errs.CodeSyntaxError, WantMsg: "import"},
}

var errorCases = []Case{
	{Name: "throw", Code: "throw new Error('boom')", WantCode: errs.CodeRuntimeError, WantMsg: "Error: boom", WantLine: 1, Check: func(t *testing.T, o *Outcome) {
		if s, _ := o.Err.Info["stack"].(string); !strings.Contains(s, ScriptName+":1:") {
			t.Errorf("got stack %q, want a frame at %s:1", s, ScriptName)
		}
	}},
	{Name: "type error in function", Code: "\nfunction f() { return null.x }\nf()", WantCode: errs.CodeRuntimeError, WantMsg: "TypeError", WantLine: 2},
	{Name: "throw string", Code: "throw 'str'", WantCode: errs.CodeRuntimeError, WantMsg: "str"},
	{Name: "rejection", Code: "await Promise.reject(new RangeError('r'))", WantCode: errs.CodeRuntimeError, WantMsg: "RangeError: r"},
	{Name: "program error with a code stays a runtime error", Code: "throw Object.assign(new Error('x'), {code: 'DENIED'})", WantCode: errs.CodeRuntimeError},
	{Name: "cyclic return", Code: "const a = {}; a.a = a; return a", WantCode: errs.CodeRuntimeError, WantMsg: "cycle"},
	{Name: "bigint return", Code: "return 10n", WantCode: errs.CodeRuntimeError, WantMsg: "BigInt"},
	{Name: "nested bigint return", Code: "return {a: [1n]}", WantCode: errs.CodeRuntimeError, WantMsg: "BigInt"},
	{Name: "function return", Code: "return () => 1", WantCode: errs.CodeRuntimeError, WantMsg: "function"},
	{Name: "never settles", Code: "await new Promise(() => {})", WantCode: errs.CodeRuntimeError, WantMsg: "never settle", Timeout: 30 * time.Second, Check: func(t *testing.T, o *Outcome) {
		if o.Elapsed > 5*time.Second {
			t.Errorf("took %v; a promise with nothing in flight must fail at once", o.Elapsed)
		}
	}},
	{Name: "never settles after a call", Code: "await tools.echo({})\nawait new Promise(() => {})", WantCode: errs.CodeRuntimeError, WantMsg: "never settle"},
}

var bindingCases = []Case{
	{Name: "echo", Code: "return await tools.echo({a: 1})", Want: map[string]any{"a": 1}},
	{Name: "no arguments", Code: "return await tools.echo()", Want: map[string]any{}},
	{Name: "exact name with dash and dot", Code: "return await tools['my-tool.v2']({})", Want: "my-tool.v2"},
	{Name: "mcp name", Code: "return await tools.mcp__fake__ticker({})", Want: "mcp__fake__ticker"},
	{Name: "undefined result", Code: "return await tools.noop({})", Want: nil},
	{Name: "unknown name reaches the registry", Code: "await tools.nope({})", WantCode: errs.CodeUnknownTool, WantMsg: "did you mean"},
	{Name: "unknown name is a function", Code: "return typeof tools['no such tool']", Want: "function"},
	{Name: "rejection is catchable with code", Code: "try { await tools.fail({}) } catch (e) { return [e instanceof Error, e.code, e.message] }", Want: []any{true, "DENIED", "denied by policy"}},
	{Name: "uncaught rejection keeps the code", Code: "await tools.fail({})", WantCode: errs.CodeDenied, WantMsg: "denied by policy"},
	{Name: "rethrown rejection keeps the code", Code: "try { await tools.fail({}) } catch (e) { throw e }", WantCode: errs.CodeDenied},
	{Name: "rejection info", Code: "try { await tools.nope({}) } catch (e) { return e.info.suggestions }", Want: []any{"echo"}},
	{Name: "then is undefined", Code: "return [typeof tools.then, typeof tools.toJSON, String(tools)]", Want: []any{"undefined", "undefined", "[object Object]"}},
	{Name: "awaiting tools itself", Code: "const t = await tools; return t === tools", Want: true},
	{Name: "keys list the tools", Code: "return Object.keys(tools).sort()", Want: []any{"barrier", "echo", "fail", "mcp__fake__ticker", "my-tool.v2", "noop", "seen", "slow"}},
	{Name: "in operator", Code: "return ['echo' in tools, 'nope' in tools]", Want: []any{true, false}},
	{Name: "arguments must be JSON", Code: "const a = {}; a.a = a\ntry { await tools.echo(a) } catch (e) { return e.code }", Want: "INVALID_ARGUMENTS"},
	{Name: "ten sequential calls", Code: "const out = []\nfor (let i = 0; i < 10; i++) out.push((await tools.echo({i})).i)\nreturn out", Want: []any{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	{Name: "Promise.all runs calls concurrently", Code: "return await Promise.all([tools.barrier({}), tools.barrier({})])", Want: []any{"ok", "ok"}, Timeout: 3 * time.Second},
	{Name: "Promise.all of results", Code: "const r = await Promise.all([1, 2, 3].map(n => tools.echo({n})))\nreturn r.map(x => x.n)", Want: []any{1, 2, 3}},
	{Name: "binding kept across calls", Code: "const f = tools.echo\nreturn [await f({a: 1}), tools.echo === tools.echo]", Want: []any{map[string]any{"a": 1}, true}},
}

// hostileCases each end with their code within the deadline plus Grace,
// and the engine runs the next program fine.
var hostileCases = []Case{
	{Name: "busy loop", Code: "for (;;) {}", WantCode: errs.CodeTimeout, Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "busy loop catching", Code: "for (;;) { try { for (;;) {} } catch (e) {} }", WantCode: errs.CodeTimeout, Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "async busy loop", Code: "for (;;) await null", WantCode: errs.CodeTimeout, Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "busy loop after a call", Code: "await tools.echo({})\nfor (;;) {}", WantCode: errs.CodeTimeout, Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "deep recursion", Code: "function f(n) { return f(n + 1) + 1 }\nreturn f(0)", WantCode: errs.CodeStackOverflow, Hostile: true},
	{Name: "array bomb", Code: "const a = []\nfor (;;) a.push(new Array(100000).fill(1))", WantCodes: memoryCodes, Hostile: true, Timeout: 10 * time.Second},
	{Name: "string bomb", Code: "let s = 'x'\nconst keep = []\nfor (;;) { s = s + s; keep.push(s) }", WantCodes: memoryCodes, Hostile: true, Timeout: 10 * time.Second},
	{Name: "string repeat bomb", Code: "return 'x'.repeat(2 ** 30).length", WantCodes: memoryCodes, Hostile: true, Timeout: 10 * time.Second},
	{Name: "object bomb", Code: "const o = {}\nfor (let i = 0; ; i++) o['k' + i] = {i, s: 'v' + i}", WantCodes: memoryCodes, Hostile: true, Timeout: 10 * time.Second, Slow: true},
	{Name: "typed array bomb", Code: "const a = []\nfor (;;) a.push(new Uint8Array(1 << 20))", WantCodes: memoryCodes, Hostile: true, Timeout: 10 * time.Second},
	{Name: "huge array buffer", Code: "return new ArrayBuffer(2 ** 40).byteLength", WantCodes: memoryCodes, Hostile: true},
	{Name: "huge typed array", Code: "return new Float64Array(2 ** 37).length", WantCodes: memoryCodes, Hostile: true},
	{Name: "huge fill", Code: "return new Array(2 ** 31).fill(0).length", WantCodes: memoryCodes, Hostile: true},
	{Name: "huge join", Code: "return new Array(2 ** 31).join('abc').length", WantCodes: memoryCodes, Hostile: true},
	// Built-ins that allocate by a length that costs nothing to set: on goja
	// sort() of a sparse array was a fatal out-of-memory of the process.
	{Name: "sort of a huge sparse array", Code: "return new Array(2 ** 32 - 1).sort().length", WantCodes: append([]errs.Code{errs.CodeTimeout}, memoryCodes...), Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "sort of a huge array-like", Code: "return Array.prototype.sort.call({ length: 2 ** 40 }).length", WantCodes: append([]errs.Code{errs.CodeTimeout}, memoryCodes...), Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "map of a huge sparse array", Code: "return new Array(2 ** 32 - 1).map(x => x).length", WantCodes: append([]errs.Code{errs.CodeTimeout}, memoryCodes...), Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "spread of a huge sparse array", Code: "return Math.max(...new Array(2 ** 30))", WantCodes: append([]errs.Code{errs.CodeTimeout}, memoryCodes...), Timeout: 300 * time.Millisecond, Hostile: true},
	// A size a built-in reads twice: a guard that checks one read while the
	// built-in allocates from another lets a program allocate anything. The
	// spec reads (or converts) each once, so a program sees the small value
	// and nothing big is ever allocated.
	{Name: "typed array length getter", Code: "let n = 0\nreturn new Uint8Array({ get length() { return n++ ? 2 ** 33 : 2 } }).length", Want: 2, Hostile: true},
	{Name: "typed array length from proxy", Code: "let n = 0\nconst p = new Proxy({ 0: 1, 1: 2, length: 2 }, { get(t, k) { return k === 'length' && n++ ? 2 ** 33 : Reflect.get(t, k) } })\nreturn new Float64Array(p).length", Want: 2, Hostile: true},
	{Name: "typed array iterator over a sparse array", Code: "return new Uint8Array({ [Symbol.iterator]() { return new Array(2 ** 32 - 1).keys() } }).length", WantCodes: append([]errs.Code{errs.CodeTimeout}, memoryCodes...), Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "typed array forged buffer tag", Code: "return new Uint8Array({ [Symbol.toStringTag]: 'ArrayBuffer', length: 2 ** 33 }).length", WantCodes: memoryCodes, Hostile: true},
	{Name: "typed array from function length", Code: "return new Uint8Array(Object.defineProperty(function () {}, 'length', { value: 2 ** 33 })).length", WantCodes: memoryCodes, Hostile: true},
	{Name: "typed array length string", Code: "return new Uint8Array('8589934592').length", WantCodes: memoryCodes, Hostile: true},
	{Name: "array buffer valueOf", Code: "let n = 0\nreturn new ArrayBuffer({ valueOf() { return n++ ? 2 ** 33 : 8 } }).byteLength", Want: 8, Hostile: true},
	{Name: "array buffer toPrimitive", Code: "let n = 0\nreturn new ArrayBuffer({ [Symbol.toPrimitive]() { return n++ ? 2 ** 33 : 8 } }).byteLength", Want: 8, Hostile: true},
	{Name: "array buffer huge valueOf", Code: "return new ArrayBuffer({ valueOf() { return 2 ** 33 } }).byteLength", WantCodes: memoryCodes, Hostile: true},
	{Name: "Array.from length getter", Code: "let n = 0\nreturn Array.from({ get length() { return n++ ? 2 ** 32 : 2 } }).length", Want: 2, Hostile: true},
	{Name: "Array.from sparse iterator", Code: "return Array.from(new Array(2 ** 32 - 1).values()).length", WantCodes: append([]errs.Code{errs.CodeTimeout}, memoryCodes...), Timeout: 300 * time.Millisecond, Hostile: true},
	{Name: "fill length getter", Code: "let n = 0\nconst o = { get length() { return n++ ? 2 ** 32 : 2 } }\nArray.prototype.fill.call(o, 1)\nreturn Object.keys(o)", Want: []any{"0", "1", "length"}, Hostile: true},
	{Name: "fill proxy length", Code: "let n = 0\nconst p = new Proxy([], { get(t, k) { return k === 'length' ? (n++ ? 2 ** 32 - 1 : 2) : Reflect.get(t, k) } })\np.fill(1)\nreturn Object.keys(p)", Want: []any{"0", "1"}, Hostile: true},
	{Name: "join length getter", Code: "let n = 0\nreturn Array.prototype.join.call({ get length() { return n++ ? 2 ** 32 : 2 } }, 'abc')", Want: "abc", Hostile: true},
	{Name: "join separator toString", Code: "let n = 0\nreturn new Array(2 ** 12).join({ toString() { return n++ ? 'x'.repeat(2 ** 16) : '' } }).length", Want: 0, Hostile: true},
	{Name: "repeat valueOf", Code: "let n = 0\nreturn 'x'.repeat({ valueOf() { return n++ ? 2 ** 30 : 1 } })", Want: "x", Hostile: true},
	{Name: "repeat receiver toString", Code: "let n = 0\nreturn String.prototype.repeat.call({ toString() { return n++ ? 'x'.repeat(2 ** 12) : 'y' } }, 2 ** 20).length", Want: 1 << 20, Hostile: true, MemoryLimit: 64 << 20},
	{Name: "padStart valueOf", Code: "let n = 0\nreturn 'x'.padStart({ valueOf() { return n++ ? 2 ** 30 : 3 } }, '-')", Want: "--x", Hostile: true},
	{Name: "padEnd toPrimitive", Code: "let n = 0\nreturn 'x'.padEnd({ [Symbol.toPrimitive]() { return n++ ? 2 ** 30 : 2 } })", Want: "x ", Hostile: true},
	{Name: "size conversions run once", Code: "let n = 0\nconst v = { valueOf() { n++; return 2 } }, l = { get length() { n++; return 2 } }, sep = { toString() { n++; return '-' } }\n'x'.repeat(v); 'x'.padStart(v); 'x'.padEnd(v); new ArrayBuffer(v); new Uint8Array(l); Array.from(l)\nArray.prototype.fill.call(l, 0); Array.prototype.join.call(l, sep)\nreturn n", Want: 9, Hostile: true},
	// Traps a program puts on Object.prototype must not reach a guard's
	// internals (a proxy finds its traps on its handler through the
	// prototype chain).
	{Name: "Object.prototype.construct trap", Code: "Object.prototype.construct = function (t, a, nt) { return Reflect.construct(t, a, nt) }\nreturn new Uint8Array(2 ** 33).length", WantCodes: memoryCodes, Hostile: true},
	{Name: "Object.prototype.apply trap", Code: "let raw\nObject.prototype.apply = function (t, self, a) { raw = raw || t; return Reflect.apply(t, self, a) }\ntry { Uint8Array(1) } catch (e) {}\ndelete Object.prototype.apply\nreturn new (raw || Uint8Array)(2 ** 33).length", WantCodes: memoryCodes, Hostile: true},
	{Name: "Object.prototype.get trap", Code: "let raw\nObject.prototype.get = function (t, k, r) { raw = raw || t; return Reflect.get(t, k, r) }\nFloat64Array.BYTES_PER_ELEMENT\ndelete Object.prototype.get\nreturn new (raw || Float64Array)(2 ** 33).length", WantCodes: memoryCodes, Hostile: true},
	{Name: "Object.prototype.has trap", Code: "let raw\nObject.prototype.has = function (t, k) { raw = raw || t; return Reflect.has(t, k) }\n'x' in ArrayBuffer\ndelete Object.prototype.has\nreturn new (raw || ArrayBuffer)(2 ** 33).byteLength", WantCodes: memoryCodes, Hostile: true},
	{Name: "Object.prototype traps all set", Code: "for (const k of ['get', 'has', 'apply', 'construct']) Object.prototype[k] = function (t, ...a) { return Reflect[k](t, ...a) }\nreturn [new ArrayBuffer(2 ** 33).byteLength, new Uint8Array(2 ** 33).length]", WantCodes: memoryCodes, Hostile: true},
	{Name: "Proxy created under an Object.prototype trap", Code: "let raw\nObject.prototype.construct = function (t, a, nt) { raw = raw || t; return Reflect.construct(t, a, nt) }\nnew Proxy({}, {})\ndelete Object.prototype.construct\nlet n = 0\nconst p = new (raw || Proxy)([], { get(t, k) { return k === 'length' ? (n++ ? 2 ** 32 - 1 : 2) : Reflect.get(t, k) } })\np.fill(1)\nreturn Object.keys(p)", Want: []any{"0", "1"}, Hostile: true},
	{Name: "require", Code: "const fs = require('fs')", WantCode: errs.CodeRuntimeError, WantMsg: "tool", Hostile: true},
	{Name: "fetch", Code: "await fetch('https://example.com')", WantCode: errs.CodeRuntimeError, WantMsg: "network", Hostile: true},
	{Name: "setTimeout", Code: "await new Promise(r => setTimeout(r, 10))", WantCode: errs.CodeRuntimeError, WantMsg: "timers", Hostile: true},
	{Name: "process.exit", Code: "process.exit(1)", WantCode: errs.CodeRuntimeError, Hostile: true},
	{Name: "host probes", Code: "return [typeof process, typeof Deno, typeof Bun, typeof require, typeof fetch, typeof setTimeout]", Want: []any{"undefined", "undefined", "undefined", "function", "function", "function"}, Hostile: true},
	{Name: "global via Function", Code: "const g = Function('return this')()\nreturn [typeof g, typeof g.process, typeof g.tools, g === globalThis]", Want: []any{"object", "undefined", "object", true}, Hostile: true},
	{Name: "source map comment in eval", Code: "return eval('1 + 1\\n//# sourceMappingURL=/dev/zero')", Want: 2, Hostile: true},
	// Parsing is recursive: a deep program must be refused before any
	// parser recurses (a Go stack overflow kills the process).
	{Name: "300k nested brackets", Code: "return " + strings.Repeat("[", 300000) + strings.Repeat("]", 300000), WantCode: errs.CodeNestingTooDeep, Hostile: true},
	{Name: "nested arrows in default values", Code: "return " + strings.Repeat("(a=", 40) + "1" + strings.Repeat(")=>1", 40), WantCode: errs.CodeNestingTooDeep, Hostile: true},
	{Name: "chained arrows", Code: "return " + strings.Repeat("a=>", 100000) + "1", WantCode: errs.CodeNestingTooDeep, Hostile: true},
	// Strings handed to eval and the Function constructors: goja parses
	// them on the Go stack (refused past the nesting bound), QuickJS in
	// wasm (its own stack check). Either way the run goes on.
	{Name: "eval of deep nesting", Code: "try { eval('['.repeat(5000)) } catch (e) {}\nreturn true", Want: true, Hostile: true},
	{Name: "Function of deep nesting", Code: "try { Function('return ' + '('.repeat(5000)) } catch (e) {}\nreturn true", Want: true, Hostile: true},
	{Name: "async Function constructor of deep nesting", Code: "const AF = Object.getPrototypeOf(async function(){}).constructor\ntry { AF('return ' + '{a:'.repeat(5000)) } catch (e) {}\nreturn true", Want: true, Hostile: true},
	{Name: "generator constructor of deep nesting", Code: "const GF = Object.getPrototypeOf(function*(){}).constructor\ntry { GF('yield ' + '!'.repeat(5000) + '1') } catch (e) {}\nreturn true", Want: true, Hostile: true},
	{Name: "eval and Function still work", Code: "const add = new Function('a', 'b', 'return a + b')\nreturn [eval('1 + 1'), add(2, 3), Function('return 4')(), (function(){}) instanceof Function, Function.prototype.constructor === Function, Function.name, eval.name, typeof eval]", Want: []any{2, 5, 4, true, true, "Function", "eval", "function"}, Hostile: true},
	{Name: "promise storm", Code: "const ps = []\nfor (let i = 0; i < 100000; i++) ps.push(tools.echo({i}))\nawait Promise.all(ps)", WantCodes: []errs.Code{errs.CodeSubcallLimit, errs.CodeMemoryLimit}, Hostile: true, Timeout: 20 * time.Second, MemoryLimit: 512 << 20},
	{Name: "huge log", Code: "for (let i = 0; i < 100000; i++) console.log('line ' + i)\nreturn 'done'", Want: "done", Hostile: true, Timeout: 20 * time.Second, Check: func(t *testing.T, o *Outcome) {
		if n := o.Tools.LogCount(); n != 100000 {
			t.Errorf("got %d log lines, want 100000", n)
		}
	}},
	{Name: "never settles", Code: "await new Promise(() => {})", WantCode: errs.CodeRuntimeError, Hostile: true},
	{Name: "cyclic return", Code: "const a = [1]; a.push(a); return a", WantCode: errs.CodeRuntimeError, Hostile: true},
	{Name: "bigint return", Code: "return 2n ** 64n", WantCode: errs.CodeRuntimeError, Hostile: true},
	{Name: "long built-in", Code: "const a = []\nfor (let i = 0; i < 3e5; i++) a.push(String(-i))\nfor (;;) a.slice().sort()", WantCodes: []errs.Code{errs.CodeTimeout, errs.CodeMemoryLimit}, Timeout: 300 * time.Millisecond, Hostile: true, Slow: true},
}

// memoryCodes: a memory bomb ends with MEMORY_LIMIT, or with a RangeError
// when the engine refuses the allocation up front.
var memoryCodes = []errs.Code{errs.CodeMemoryLimit, errs.CodeRuntimeError}

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
		for _, code := range []string{"setTimeout(() => 1, 10)", "[2, 1].sort(() => { throw new Error('cmp') })"} {
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
}

func mustPrepare(t *testing.T, code string, persistent bool) *source.Script {
	t.Helper()
	o, err := source.Prepare(code, source.Options{Persistent: persistent})
	if err != nil {
		t.Fatal(err)
	}
	return o
}
