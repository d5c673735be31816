package gojaengine

import "testing"

// BenchmarkNewVMState measures building one pooled runtime (the work the
// pool's filler does for every per-call program), without the pool and
// engine around it.
func BenchmarkNewVMState(b *testing.B) {
	d, err := newDriver(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	b.ReportAllocs()
	for range b.N {
		if _, err := d.newVM(); err != nil {
			b.Fatal(err)
		}
	}
}
