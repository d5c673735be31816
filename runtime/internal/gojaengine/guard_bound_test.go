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
	if g.suspect(h, h.objects, false) == nil {
		t.Errorf("objects 80 MiB over the baseline, budget 64 MiB: want suspect by the objects alone")
	}
	if g.suspect(h, 60*mib, false) != nil {
		t.Errorf("live bound 40 MiB over the baseline, budget 64 MiB: want not suspect")
	}
	if g.suspect(h, 90*mib, false) == nil {
		t.Errorf("live bound 70 MiB over the baseline, budget 64 MiB: want suspect")
	}
}

// TestSuspectLeavesItToTheNaturalCycle: a suspect run is left to the
// collector's own next cycle when that cycle is about to start and its heap
// goal lies within the run's baseline plus the budget and a quarter;
// otherwise the guard forces one as before.
func TestSuspectLeavesItToTheNaturalCycle(t *testing.T) {
	const mib = 1 << 20
	g := newGuard(0)
	w := &watched{g: g, run: &engine.Run{}, limit: 64 * mib, baseline: 20 * mib, startCycles: 3}
	g.runs[w] = struct{}{}
	for _, c := range []struct {
		name      string
		h         heapSample
		allocated uint64
		want      bool
	}{
		{"goal within, allocating fast", heapSample{objects: 90 * mib, live: 30 * mib, cycles: 4, goal: 95 * mib}, 1 * mib, false},
		{"goal within, the heap at the goal", heapSample{objects: 96 * mib, live: 30 * mib, cycles: 4, goal: 95 * mib}, 1, false},
		{"goal within, not allocating", heapSample{objects: 90 * mib, live: 30 * mib, cycles: 4, goal: 95 * mib}, 0, true},
		{"goal within, allocating too slowly", heapSample{objects: 90 * mib, live: 30 * mib, cycles: 4, goal: 100 * mib}, 100 << 10, true},
		{"goal past the budget and a quarter", heapSample{objects: 90 * mib, live: 30 * mib, cycles: 4, goal: 101 * mib}, 10 * mib, true},
		{"goal unknown", heapSample{objects: 90 * mib, live: 30 * mib, cycles: 4}, 10 * mib, true},
	} {
		if got := g.suspect(c.h, c.h.objects, naturalSoon(c.h, c.allocated)) != nil; got != c.want {
			t.Errorf("%s: suspect %v, want %v", c.name, got, c.want)
		}
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

// TestAskSuspect: a suspect run is asked to confirm at its next step
// (once: later asks wait for its answer) unless it cannot be paused or
// has not answered within askWait, when the guard forces the cycle itself.
func TestAskSuspect(t *testing.T) {
	g := newGuard(0)
	var paused []func()
	w := &watched{g: g, run: &engine.Run{}, limit: 64 << 20, finished: make(chan struct{}), pause: func(f func()) { paused = append(paused, f) }}
	g.runs[w] = struct{}{}
	h := heapSample{cycles: 7}
	if !g.ask(w, h) || len(paused) != 1 || !w.confirming || w.confirmAt != 7 {
		t.Fatalf("first ask: paused %d, confirming %v at %d", len(paused), w.confirming, w.confirmAt)
	}
	if !g.ask(w, h) || len(paused) != 1 {
		t.Fatalf("second ask: want a wait for the answer, paused %d", len(paused))
	}
	w.askedAt -= int64(2 * askWait)
	if g.ask(w, h) {
		t.Fatalf("an ask unanswered for 2×askWait: want the guard to force the cycle")
	}
	close(w.finished)
	paused[0]() // the run ended first: nothing to confirm
	if !w.confirming {
		t.Fatalf("a finished run's confirmation ran")
	}
	if g.ask(&watched{g: g, run: &engine.Run{}}, h) {
		t.Fatalf("a run without a VM cannot be asked")
	}
}
