package gojaengine

import "testing"

// BenchmarkNewVMState measures building one pooled runtime (the work the
// refill goroutine does for every per-call program), without the pool and
// engine around it.
func BenchmarkNewVMState(b *testing.B) {
	if _, err := newVMState(); err != nil { // the shared baseline, once
		b.Fatal(err)
	}
	b.ReportAllocs()
	for range b.N {
		if _, err := newVMState(); err != nil {
			b.Fatal(err)
		}
	}
}
