package gojaengine

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/enginetest"
	"github.com/codemode/codemode/runtime/internal/goja"
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
	cpu0 := cpuTime()
	for range b.N {
		if _, err := d.newVM(); err != nil {
			b.Fatal(err)
		}
	}
	// The process's CPU time (this goroutine's and the garbage collector's)
	// per runtime: unlike ns/op, it does not count time the machine's other
	// processes took from this one.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkGojaNew is the floor under BenchmarkNewVMState: a bare goja
// runtime, with nothing of the sandbox in it.
func BenchmarkGojaNew(b *testing.B) {
	b.ReportAllocs()
	cpu0 := cpuTime()
	for range b.N {
		goja.New()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestIdleSize keeps an idle persistent environment within 192 KiB of
// Go heap (issue 11: every new global is installed lazily).
func TestIdleSize(t *testing.T) {
	eng, err := New(Options{PoolSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	n := 40
	if s := os.Getenv("CODEMODE_IDLE_N"); s != "" { // 10000 for docs/benchmarks.md's figure
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	size := enginetest.IdleSize(t, eng, n)
	t.Logf("an idle persistent goja environment holds %d KiB (%d environments)", size>>10, n)
	if size > 192<<10 {
		t.Errorf("idle persistent environment: %d KiB, want at most 192 KiB", size>>10)
	}
}
