package gojaengine

import (
	"testing"

	"github.com/codemode/codemode/runtime/internal/enginetest"
)

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

// TestIdleSize keeps an idle persistent environment within 256 KiB of
// Go heap (issue 11: every new global is installed lazily).
func TestIdleSize(t *testing.T) {
	eng, err := New(Options{PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	size := enginetest.IdleSize(t, eng, 40)
	t.Logf("an idle persistent goja environment holds %d KiB", size>>10)
	if size > 256<<10 {
		t.Errorf("idle persistent environment: %d KiB, want at most 256 KiB", size>>10)
	}
}
