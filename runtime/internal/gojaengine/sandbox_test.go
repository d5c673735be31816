package gojaengine

import (
	"slices"
	"testing"

	"github.com/codemode/codemode/runtime/internal/enginetest"
	"github.com/codemode/codemode/tools"
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
			want := []tools.Code{tools.CodeRuntimeError, tools.CodeMemoryLimit}
			if o.Err == nil || !slices.Contains(want, o.Err.Code) {
				t.Errorf("got %s, %v; want a refused allocation (%v)", o.Value, o.Err, want)
			}
		})
	}
}
