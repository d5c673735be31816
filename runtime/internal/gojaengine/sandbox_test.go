package gojaengine

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/enginetest"
	"github.com/codemode/codemode/tools/errs"
)

// TestGuardedCtorTraps: the proxies that size-check typed-array
// constructors look their traps up on their handlers; traps a program adds
// to Object.prototype must not be found there, or they receive the
// unguarded constructor.
func TestGuardedCtorTraps(t *testing.T) {
	eng := newTestEngine(t, Options{})
	for _, tc := range []struct{ name, code string }{
		{"get trap", "let raw\nObject.prototype.get = function (t, k, r) { raw = raw || t; return Reflect.get(t, k, r) }\nUint8Array.BYTES_PER_ELEMENT\ndelete Object.prototype.get\nreturn new (raw || Uint8Array)(2 ** 33).length"},
		{"apply trap", "let raw\nObject.prototype.apply = function (t) { raw = t }\ntry { Uint8Array(1) } catch (e) {}\ndelete Object.prototype.apply\nreturn new (raw || Uint8Array)(2 ** 33).length"},
		{"has trap", "let raw\nObject.prototype.has = function (t) { raw = t; return false }\n'x' in ArrayBuffer\ndelete Object.prototype.has\nreturn new (raw || ArrayBuffer)(2 ** 33).byteLength"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := enginetest.Exec(t, eng, tc.code, enginetest.ExecOptions{MemoryLimit: enginetest.SuiteMemoryLimit})
			want := []errs.Code{errs.CodeRuntimeError, errs.CodeMemoryLimit}
			if o.Err == nil || !slices.Contains(want, o.Err.Code) {
				t.Errorf("got %s, %v; want a refused allocation (%v)", o.Value, o.Err, want)
			}
		})
	}
}

// TestGuardsRefuseUpFront: each guarded built-in, handed a size the program
// can change between reads (getters, proxy traps, valueOf and friends,
// forged brands, iterators that would run natively), refuses with a
// RangeError or completes with the size it read once. Before, goja re-read
// the size and the VM was abandoned inside the built-in while it allocated
// gigabytes, which the suite's MEMORY_LIMIT expectation cannot tell apart.
// Iterations that follow the program's changes (an array iterator re-reads
// a proxy's length at every step) run as JavaScript and end at the deadline.
func TestGuardsRefuseUpFront(t *testing.T) {
	eng := newTestEngine(t, Options{})
	for _, tc := range []struct{ name, code, want string }{
		{"typed array length getter", "let n = 0\nreturn new Uint8Array({ get length() { return n++ ? 2 ** 33 : 0 } }).length", "0"},
		{"typed array huge length getter", "return new Uint8Array({ get length() { return 2 ** 33 } }).length", ""},
		{"typed array from a proxy of an array", "let n = 0\nreturn new Uint8Array(new Proxy([], { get(t, k) { return k === 'length' ? (n++ ? 2 ** 33 : 0) : Reflect.get(t, k) } })).length", "refused"},
		{"typed array from a typed array with a length getter", "const a = new Uint8Array(10 << 20)\nObject.defineProperty(a, 'length', { value: 0 })\nreturn new Float64Array(a).length", ""},
		{"typed array string length", "return new Uint8Array('8589934592').length", ""},
		{"typed array forged buffer", "return new Uint8Array({ [Symbol.toStringTag]: 'ArrayBuffer', length: 2 ** 33 }).length", ""},
		{"typed array function length", "return new Uint8Array(Object.defineProperty(function () {}, 'length', { value: 2 ** 33 })).length", ""},
		{"array buffer valueOf", "return new ArrayBuffer({ valueOf() { return 2 ** 33 } }).byteLength", ""},
		{"array buffer toPrimitive", "let n = 0\nreturn new ArrayBuffer({ [Symbol.toPrimitive]() { return n++ ? 2 ** 33 : 1 } }).byteLength", "1"},
		{"Array.from length getter", "let n = 0\nreturn Array.from({ get length() { return n++ ? 2 ** 32 : 1 } }).length", "1"},
		{"Array.from sparse array", "return Array.from(new Array(2 ** 31)).length", ""},
		{"Array.from iterator returning a native iterator", "return Array.from({ [Symbol.iterator]() { return new Array(2 ** 32 - 1).keys() } }).length", "refused"},
		{"fill length getter", "let n = 0\nconst o = { get length() { return n++ ? 2 ** 32 : 1 } }\nArray.prototype.fill.call(o, 0)\nreturn Object.keys(o).length", "2"},
		{"fill proxy", "let n = 0\nconst p = new Proxy([], { get(t, k) { return k === 'length' ? (n++ ? 2 ** 32 - 1 : 1) : Reflect.get(t, k) } })\nreturn p.fill(0) && Object.keys(p).length", "1"},
		{"fill start shrinks the array", "const a = [1, 2, 3]\nreturn a.fill(0, { valueOf() { a.length = 2 ** 32 - 1; return 0 } }).length", "4294967295"},
		{"join length getter", "let n = 0\nreturn Array.prototype.join.call({ get length() { return n++ ? 2 ** 32 : 1 } }, 'ab')", `""`},
		{"join separator toString", "let n = 0\nreturn new Array(2 ** 12).join({ toString() { return n++ ? 'x'.repeat(2 ** 16) : '' } }).length", "0"},
		{"join of a proxy with big elements", "const s = 'x'.repeat(1 << 20)\nreturn Array.prototype.join.call(new Proxy(new Array(4096).fill(s), {}), '').length", ""},
		{"join amplifying a big string", "const s = 'x'.repeat(1 << 20)\nreturn new Array(300).fill(s).join('').length", ""},
		{"join amplifying through separators", "const s = 'x'.repeat(1 << 20)\nreturn new Array(300).join(s).length", ""},
		{"join of elements converting to a big string", "const big = 'y'.repeat(1 << 20)\nreturn new Array(300).fill({ toString() { return big } }).join('').length", ""},
		{"join converts each element once", "let n = 0\nconst o = { toString() { n++; return 'a' } }\nreturn [o, o, o].join('+') + n", `"a+a+a3"`},
		{"join semantics", "const a = [1, 'é', null, undefined, { toString() { return 'o' } }, [2, [3]], true, 1.5, '😀']\na.push(a)\nreturn a.join('→')", `"1→é→→→o→2,3→true→1.5→😀→"`},
		{"join of a symbol", "try { [Symbol('s')].join() } catch (e) { return e.name }", `"TypeError"`},
		{"join of an array-like", "return Array.prototype.join.call({ length: 3, 0: 'a', 2: 'c' }, '')", `"ac"`},
		// Built-ins that allocate by a sparse array's or an array-like's
		// length: sort() and map() used to kill the process (a fatal Go
		// out-of-memory), the others to grow the heap of an abandoned VM.
		{"sort of a sparse array", "return new Array(2 ** 32 - 1).sort().length", ""},
		{"sort of an array-like", "return Array.prototype.sort.call({ length: 2 ** 40 }).length", ""},
		{"sort of an array-like with a length getter", "let n = 0\nreturn Array.prototype.sort.call({ get length() { return n++ ? 2 ** 40 : 2 }, 0: 'b', 1: 'a' })[0]", `"a"`},
		{"map of a sparse array", "return new Array(2 ** 32 - 1).map(x => x).length", ""},
		{"toReversed of a sparse array", "return new Array(2 ** 32 - 1).toReversed().length", ""},
		{"toSpliced of a sparse array", "return new Array(2 ** 32 - 1).toSpliced(0, 0).length", ""},
		{"with on a sparse array", "return new Array(2 ** 32 - 1).with(0, 1).length", ""},
		{"spread of a sparse array", "return [...new Array(2 ** 26)].length", ""},
		{"spread of a sparse array's keys", "return [...new Array(2 ** 26).keys()].length", ""},
		{"length grown by a comparator", "const a = [3, 2, 1]\na.sort((x, y) => { a.length = 2 ** 32 - 1; return x - y })\nreturn a.slice(0, 3)", "[1,2,3]"},
		{"array methods still work", "const a = [3, 1, 2]\nconst o = { length: 2, 0: 'b', 1: 'a' }\nArray.prototype.sort.call(o)\nreturn [a.toSorted(), a.map(x => x * 2), a.toReversed(), a.toSpliced(1, 1), a.with(0, 9), [...a], [...a.keys()], [...a.entries()][2], Array.prototype.map.call(o, x => x + x), o[0], a.sort((x, y) => y - x)]", `[[1,2,3],[6,2,4],[2,1,3],[3,2],[9,1,2],[3,1,2],[0,1,2],[2,2],["aa","bb"],"a",[3,2,1]]`},
		{"repeat valueOf", "let n = 0\nreturn 'x'.repeat({ valueOf() { return n++ ? 2 ** 30 : 1 } })", `"x"`},
		{"repeat receiver toString", "let n = 0\nreturn String.prototype.repeat.call({ toString() { return n++ ? 'x'.repeat(4096) : 'y' } }, 2 ** 20).length", "1048576"},
		{"padStart valueOf", "let n = 0\nreturn 'x'.padStart({ valueOf() { return n++ ? 2 ** 30 : 2 } })", `" x"`},
		{"padEnd valueOf", "return 'x'.padEnd({ valueOf() { return 2 ** 30 } }).length", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := enginetest.Exec(t, eng, tc.code, enginetest.ExecOptions{MemoryLimit: enginetest.SuiteMemoryLimit, Timeout: 300 * time.Millisecond * enginetest.RaceSlowdown})
			switch {
			case o.Err != nil && strings.Contains(o.Err.Message, "stuck in a built-in"):
				t.Errorf("the VM was abandoned inside a built-in: %v", o.Err)
			case tc.want == "refused": // up front, or at the deadline if the guard cannot see it coming
				if o.Err == nil || !slices.Contains([]errs.Code{errs.CodeTimeout, errs.CodeMemoryLimit, errs.CodeRuntimeError}, o.Err.Code) ||
					o.Err.Code == errs.CodeRuntimeError && !strings.Contains(o.Err.Message, "RangeError") {
					t.Errorf("got %s, %v; want a RangeError, TIMEOUT or MEMORY_LIMIT", o.Value, o.Err)
				}
			case tc.want == "timeout":
				if o.Err == nil || !slices.Contains([]errs.Code{errs.CodeTimeout, errs.CodeMemoryLimit}, o.Err.Code) {
					t.Errorf("got %s, %v; want TIMEOUT or MEMORY_LIMIT", o.Value, o.Err)
				}
			case tc.want == "":
				// A size check's refusal: a RangeError, MEMORY_LIMIT uncaught.
				if o.Err == nil || o.Err.Code != errs.CodeMemoryLimit || !strings.Contains(o.Err.Message, "memory budget") {
					t.Errorf("got %s, %v; want MEMORY_LIMIT from a size check", o.Value, o.Err)
				}
			case o.Err != nil || string(o.Value) != tc.want:
				t.Errorf("got %s, %v; want %s", o.Value, o.Err, tc.want)
			}
		})
	}
}

// TestEvalNesting: goja parses eval'd text on the VM goroutine's Go stack,
// where 300k nested brackets were a fatal stack overflow of the process.
// Refused, it is the RangeError V8 and QuickJS throw (uncaught:
// STACK_OVERFLOW on both engines).
func TestEvalNesting(t *testing.T) {
	eng := newTestEngine(t, Options{})
	deep := "'['.repeat(200000)"
	tests := []struct{ name, code string }{
		{"eval", "eval(" + deep + ")"},
		{"indirect eval", "(0, eval)(" + deep + ")"},
		{"Function", "Function(" + deep + ")"},
		{"new Function with parameters", "new Function('a', 'b', " + deep + ")"},
		{"Function in parameters", "Function(" + deep + ", 'return 1')"},
		{"async function constructor", "Object.getPrototypeOf(async function(){}).constructor(" + deep + ")"},
		{"generator function constructor", "Object.getPrototypeOf(function*(){}).constructor(" + deep + ")"},
		{"constructor of a function", "(function(){}).constructor(" + deep + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := enginetest.Exec(t, eng, "try { "+tt.code+" } catch (e) { return [e.name, e.message] }", enginetest.ExecOptions{})
			if o.Err != nil {
				t.Fatalf("got %v", o.Err)
			}
			var got []string
			if err := json.Unmarshal(o.Value, &got); err != nil || len(got) != 2 || got[0] != "RangeError" || !strings.HasPrefix(got[1], "Maximum call stack size exceeded") || !strings.Contains(got[1], "nests deeper than") {
				t.Fatalf("got %s, want V8's stack-overflow RangeError saying the code nests too deeply", o.Value)
			}
		})
	}
}
