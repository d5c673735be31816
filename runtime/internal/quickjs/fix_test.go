package quickjs

import (
	"bytes"
	"context"
	"testing"
)

// TestMappedArgumentsGC: a GC cycle while a sloppy function whose
// arguments object maps its parameters is running leaves the parameters
// and the runtime intact (fix.go: without the fix the GC unlinks the
// mapped var_refs from a list they are not in, and this traps or returns
// garbage). Several instances and rounds: what the corruption hits
// depends on the heap's garbage.
func TestMappedArgumentsGC(t *testing.T) {
	r := newTestRuntime(t)
	const prog = `(function () {
  function f(a, b) {
    arguments;
    var keep = [];
    for (var i = 0; i < 100000; i++) keep.push({ i: i });
    b = a + 1;
    return [a, b, arguments[0], arguments[1], keep.length].join();
  }
  var out = [];
  for (var k = 0; k < 3; k++) out.push(f(40 + k, 0));
  return out.join(";");
})()`
	evalInFreshInstances(t, r, prog, "40,41,40,41,100000;41,42,41,42,100000;42,43,42,43,100000")
}

// TestFixQuickJS: each fix finds its code exactly once in the pinned build
// and the fixed module differs from it only there.
func TestFixQuickJS(t *testing.T) {
	art := loadTestArtifact(t)
	fixed, err := fixQuickJS(art.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(fixed)-len(art.Wasm), len(mappedArgumentsMarkFix)-len(mappedArgumentsMark); got != want {
		t.Errorf("the fixed module is %d bytes longer, want %d", got, want)
	}
	if !bytes.Contains(fixed, mappedArgumentsMarkFix) || bytes.Contains(fixed, mappedArgumentsMark) {
		t.Error("js_mapped_arguments_mark was not replaced")
	}
	if !bytes.Contains(fixed, deleteLastElementFix) || bytes.Contains(fixed, deleteLastElement) {
		t.Error("delete_property was not fixed")
	}
	if _, err := fixQuickJS(fixed); err == nil {
		t.Error("fixing a fixed module: no error, want the code not found")
	}
}

// TestDeleteLastElement: deleting the last element of a fast array (or of
// an arguments object) leaves a consistent array (fix.go: without the fix
// the fast part shrinks under an unchanged length and the freed slot is
// used again; QuickJS-ng's tests/bug1430.js, which traps here).
func TestDeleteLastElement(t *testing.T) {
	r := newTestRuntime(t)
	const prog = `(function () {
  var out = [];
  for (var k = 0; k < 50; k++) {
    var arr = [{ x: 0 }, { x: k }];
    delete arr[1];
    out.push([arr.length, 1 in arr, arr[1]].join("/"));
    arr.push({ y: 2 });
    out.push([arr.length, 1 in arr, 2 in arr, arr[1], arr[2].y].join("/"));
    var junk = [];
    for (var j = 0; j < 200; j++) junk.push({ j: j });
  }
  function f(a, b) { delete arguments[1]; b = 7; return [arguments.length, 1 in arguments, arguments[1], b].join("/"); }
  function g(a, b) { "use strict"; delete arguments[1]; return [arguments.length, 1 in arguments, arguments[1]].join("/"); }
  out.push(f(1, 2), g(1, 2));
  return out.slice(-4).join(";");
})()`
	evalInFreshInstances(t, r, prog, "2/false/;3/false/true//2;2/false//7;2/false/")
}

// evalInFreshInstances evaluates prog in a new instance and context of r,
// twice (what memory corruption hits depends on the heap's garbage), and
// wants its value, as a string, to be want each time.
func evalInFreshInstances(t *testing.T, r *Runtime, prog, want string) {
	t.Helper()
	for round := 0; round < 2; round++ {
		inst, err := r.NewInstance(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		c, err := inst.NewContext()
		if err != nil {
			t.Fatal(err)
		}
		if s := evalString(t, inst, c, prog); s != want {
			t.Errorf("round %d: got %s, want %s", round, s, want)
		}
		if err := inst.FreeContext(c); err != nil {
			t.Fatal(err)
		}
		inst.Close()
	}
}
