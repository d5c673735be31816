package quickjs

import (
	"fmt"
	goruntime "runtime"
	"testing"
)

// BenchmarkEval measures a warm evaluation of a trivial script: the floor
// under every program.
func BenchmarkEval(b *testing.B) {
	_, inst, c := newTestContext(b)
	b.ReportAllocs()
	for b.Loop() {
		v, err := inst.Eval(c, "1 + 1", "b.js", EvalGlobal)
		if err != nil {
			b.Fatal(err)
		}
		inst.FreeValue(c, v)
	}
}

// BenchmarkInterpreter measures QuickJS's own interpretation, per
// JavaScript operation: each program runs its operation `reps` times in one
// evaluation, so the host path (Eval, the dispatcher) is a small share.
// ns/js-op is wall time, cpu-ns/js-op the thread's CPU time (Linux), which
// a loaded machine disturbs far less. For comparing builds of the wasm
// (RATIONALE.md, "Why is the embedded QuickJS wasm re-optimised with
// wasm-opt?"): alternate the test binaries of the two commits, several
// rounds.
func BenchmarkInterpreter(b *testing.B) {
	for _, bc := range []struct {
		name string
		reps int
		prog string // the operation's loop; N is reps
	}{
		{"empty-loop", 100000, `for (var i = 0; i < N; i++) {}`},
		{"call-empty", 100000, `var f = function () {}; for (var i = 0; i < N; i++) f("x");`},
		{"noop-method", 100000, `var noop = {log: Function.prototype}; for (var i = 0; i < N; i++) noop.log("x");`},
		{"fib", 1, `function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); } fib(20);`},
		{"objects", 10000, `var s = 0; for (var i = 0; i < N; i++) { var o = {a: i, b: [i, i + 1], c: "k" + (i & 7)}; s += o.a + o.b[1] + o.c.length; }`},
		{"sort", 10, `var a = []; for (var k = 0; k < 1000; k++) a.push((k * 7919) % 1000); for (var i = 0; i < N; i++) a.slice().sort(function (x, y) { return x - y; });`},
		{"regex", 1000, `var s = ""; for (var i = 0; i < N; i++) s = "hello world, foo bar baz".replace(/o/g, "0");`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			_, inst, c := newTestContext(b)
			prog := fmt.Sprintf("(function () { var N = %d; %s })()", bc.reps, bc.prog)
			// wazero runs the wasm on the calling goroutine: keep it on
			// one thread so that the thread's CPU time is the run's.
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			cpu0, cpuOK := threadCPU()
			for b.Loop() {
				v, err := inst.Eval(c, prog, "b.js", EvalGlobal)
				if err != nil {
					b.Fatal(err)
				}
				if exc, _ := inst.Exception(c, v); exc != 0 {
					b.Fatalf("%s threw", bc.name)
				}
				inst.FreeValue(c, v)
			}
			ops := float64(b.N * bc.reps)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/ops, "ns/js-op")
			if cpu1, ok := threadCPU(); ok && cpuOK {
				b.ReportMetric(float64((cpu1-cpu0).Nanoseconds())/ops, "cpu-ns/js-op")
			}
		})
	}
}
