package gojaengine

import (
	"runtime"
	"testing"

	"github.com/codemode/codemode/runtime/internal/engine"
)

// TestLiveBound: the guard's live bound is the heap objects until a GC
// cycle is seen to end, then the live heap that cycle marked plus what was
// allocated since (counted from the sample before the cycle ended), never
// more than the heap objects.
func TestLiveBound(t *testing.T) {
	const mib = 1 << 20
	var b liveBound
	steps := []struct {
		name string
		h    heapSample
		want uint64
	}{
		{"first sample: objects", heapSample{objects: 90 * mib, live: 10 * mib, cycles: 3, allocs: 500 * mib}, 90 * mib},
		{"no cycle seen yet: objects", heapSample{objects: 95 * mib, live: 10 * mib, cycles: 3, allocs: 505 * mib}, 95 * mib},
		// A cycle ended: 40 MiB live, its garbage not yet swept.
		{"cycle ended: live + allocs since the sample before", heapSample{objects: 96 * mib, live: 40 * mib, cycles: 4, allocs: 507 * mib}, 42 * mib},
		{"allocations since add up", heapSample{objects: 97 * mib, live: 40 * mib, cycles: 4, allocs: 530 * mib}, 65 * mib},
		{"never above the objects", heapSample{objects: 50 * mib, live: 40 * mib, cycles: 4, allocs: 600 * mib}, 50 * mib},
		{"two cycles at once", heapSample{objects: 120 * mib, live: 70 * mib, cycles: 6, allocs: 640 * mib}, 110 * mib},
		{"next sample", heapSample{objects: 121 * mib, live: 70 * mib, cycles: 6, allocs: 641 * mib}, 111 * mib},
	}
	for _, s := range steps {
		if got := b.next(s.h); got != s.want {
			t.Errorf("%s: bound %d MiB, want %d MiB", s.name, got/mib, s.want/mib)
		}
	}
}

// TestSuspectUsesTheLiveBound: right after a GC cycle the heap objects
// still count its unswept garbage; a run whose live heap (marked plus
// allocated since) is under its budget is not suspect, so the guard does
// not force a second cycle back to back with the first.
func TestSuspectUsesTheLiveBound(t *testing.T) {
	const mib = 1 << 20
	g := newGuard(0)
	w := &watched{g: g, run: &engine.Run{}, limit: 64 * mib, baseline: 20 * mib, startCycles: 3}
	g.runs[w] = struct{}{}
	h := heapSample{objects: 100 * mib, live: 50 * mib, cycles: 4}
	if !g.suspect(h, h.objects) {
		t.Errorf("objects 80 MiB over the baseline, budget 64 MiB: want suspect by the objects alone")
	}
	if g.suspect(h, 60*mib) {
		t.Errorf("live bound 40 MiB over the baseline, budget 64 MiB: want not suspect")
	}
	if !g.suspect(h, 90*mib) {
		t.Errorf("live bound 70 MiB over the baseline, budget 64 MiB: want suspect")
	}
}

// TestMarkingFromPauses: the guard tells a GC cycle under way from the
// GC's pauses (two per cycle) and the cycles completed. The test checks
// that the runtime counts them so: after runtime.GC, which returns once its
// cycle has ended, the count says no cycle is under way (a cycle another
// test started may run meanwhile, so a few tries).
func TestMarkingFromPauses(t *testing.T) {
	for _, c := range []struct {
		pauses, cycles uint64
		want           bool
	}{{0, 0, false}, {1, 0, true}, {2, 1, false}, {1, 1, false}, {7, 3, true}, {9, 3, false}} {
		if got := marking(c.pauses, c.cycles); got != c.want {
			t.Errorf("marking(%d pauses, %d cycles) = %v, want %v", c.pauses, c.cycles, got, c.want)
		}
	}
	s := newLoopSamples()
	for try := 0; ; try++ {
		runtime.GC()
		h := readHeap(s)
		if h.cycles == 0 || h.allocs == 0 {
			t.Fatalf("no figures: %+v", h)
		}
		if !h.marking {
			return
		}
		if try == 10 {
			t.Fatalf("a cycle under way after each of 10 runtime.GC calls: %+v", h)
		}
	}
}

// TestVerdict: a live figure over a run's budget kills it only when the
// figure is proof (over even without what the cycle may have marked black
// by allocation); otherwise the run is asked to confirm on its own
// goroutine, once, unless its last clean figure plus everything allocated
// since is under the budget; a run that does not answer within two cycles
// is judged by the figure.
func TestVerdict(t *testing.T) {
	const mib = 1 << 20
	pause := func(func()) {}
	for _, c := range []struct {
		name  string
		w     *watched
		h     heapSample
		black uint64
		want  int
	}{
		{"no pause: the figure decides", &watched{limit: 64 * mib, baseline: 10 * mib}, heapSample{live: 80 * mib, cycles: 5}, 30 * mib, verdictKill},
		{"over even without black", &watched{limit: 64 * mib, baseline: 10 * mib, pause: pause}, heapSample{live: 100 * mib, cycles: 5}, 20 * mib, verdictKill},
		{"black may explain it: ask", &watched{limit: 64 * mib, baseline: 10 * mib, pause: pause}, heapSample{live: 80 * mib, cycles: 5}, 20 * mib, verdictAsk},
		{"asked: wait", &watched{limit: 64 * mib, baseline: 10 * mib, pause: pause, confirming: true, confirmAt: 5}, heapSample{live: 80 * mib, cycles: 6}, 20 * mib, verdictWait},
		{"asked two cycles ago: kill", &watched{limit: 64 * mib, baseline: 10 * mib, pause: pause, confirming: true, confirmAt: 5}, heapSample{live: 80 * mib, cycles: 7}, 20 * mib, verdictKill},
		{"clean figure + allocations since under: clear", &watched{limit: 64 * mib, baseline: 10 * mib, pause: pause, clean: true, cleanLive: 50 * mib, cleanAllocs: 1000 * mib}, heapSample{live: 80 * mib, cycles: 5, allocs: 1020 * mib}, 20 * mib, verdictClear},
		{"clean figure + allocations since over: ask", &watched{limit: 64 * mib, baseline: 10 * mib, pause: pause, clean: true, cleanLive: 50 * mib, cleanAllocs: 1000 * mib}, heapSample{live: 80 * mib, cycles: 5, allocs: 1030 * mib}, 20 * mib, verdictAsk},
		{"a persistent environment's retention shrinks the budget", &watched{limit: 64 * mib, retained: 30 * mib, baseline: 10 * mib, pause: pause}, heapSample{live: 80 * mib, cycles: 5}, 20 * mib, verdictKill},
	} {
		if got := c.w.verdict(c.h, c.black); got != c.want {
			t.Errorf("%s: verdict %d, want %d", c.name, got, c.want)
		}
	}
}
