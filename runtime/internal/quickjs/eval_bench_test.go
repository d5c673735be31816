package quickjs

import (
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
