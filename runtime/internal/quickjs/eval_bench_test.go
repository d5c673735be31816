package quickjs

import (
	"context"
	"testing"
)

// BenchmarkEval measures a warm evaluation of a trivial script: the floor
// under every program.
func BenchmarkEval(b *testing.B) {
	r := newTestRuntime(b)
	inst, err := r.NewInstance(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close()
	c, err := inst.NewContext()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		v, err := inst.Eval(c, "1 + 1", "b.js", EvalGlobal)
		if err != nil {
			b.Fatal(err)
		}
		inst.FreeValue(c, v)
	}
}
