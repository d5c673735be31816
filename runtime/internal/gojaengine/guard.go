package gojaengine

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/tools/errs"
)

// watched is the guard's record of one run.
type watched struct {
	run      *engine.Run
	limit    int64
	retained int64         // what the run's persistent environment held when it started
	killed   atomic.Bool   // the guard killed the run
	finished chan struct{} // closed when the VM lets go of the run

	baseline    uint64       // heap objects when the run started
	startCycles uint64       // GC cycles completed when the run started
	jsSince     atomic.Int64 // UnixNano when the VM entered JavaScript, 0 outside
	jsTotal     atomic.Int64 // nanoseconds spent in JavaScript so far
	jsBefore    int64        // every run's JavaScript time when this one started (guard.jsTime)

	// pause runs a function on the VM's goroutine between two steps of the
	// program (goja's RequestSafepoint): confirm's GC cycle runs there,
	// where the program cannot allocate. nil in tests without a VM.
	pause func(func())
	// confirming: a confirmation was asked at GC cycle confirmAt and has
	// not run yet; under g.mu.
	confirming bool
	confirmAt  uint64
	askedAt    int64 // UnixNano of the ask, when it came from suspect (ask)
	// clean: a GC cycle run on the VM's goroutine (confirm, allocate)
	// found cleanLive live when cleanAllocs had been allocated in all: the
	// live heap is at most cleanLive plus what was allocated since. Under
	// g.mu.
	clean                  bool
	cleanLive, cleanAllocs uint64

	// allocate's state, on the VM's goroutine only.
	g         *guard
	samples   []metrics.Sample
	gcObjects uint64 // heap objects after allocate's last forced GC; 0 none yet
}

// budget is what the run may grow the heap by: its limit less what its
// environment already holds, so that a persistent environment's state and
// the growth of its runs share one budget, as on wazero.
func (w *watched) budget() int64 { return max(0, w.limit-w.retained) }

func (w *watched) enterJS() { w.jsSince.Store(time.Now().UnixNano()) }
func (w *watched) leaveJS() {
	if s := w.jsSince.Swap(0); s != 0 {
		w.jsTotal.Add(time.Now().UnixNano() - s)
	}
}

// jsTime is the JavaScript time of the run so far, including the current
// stretch: the guard's best proxy for "who allocated".
func (w *watched) jsTime(now int64) int64 {
	t := w.jsTotal.Load()
	if s := w.jsSince.Load(); s != 0 {
		t += now - s
	}
	return t
}

// guard is the memory watchdog. goja allocates from the Go heap with no
// per-runtime accounting, so the guard watches the whole process instead:
// while at least one program runs it samples the heap every interval, and
// when the heap has grown past a run's baseline by more than the run's
// budget, it interrupts one run with MEMORY_LIMIT, waits for that run to let
// go of its VM, collects, and goes on.
//
// "Grown" has to see through garbage. The baseline is the heap objects
// (live plus not-yet-swept garbage) when the run starts, an upper bound of
// the live heap then. A run is over budget when the live heap marked by a
// GC cycle that ended after the run started exceeds baseline + budget, or,
// The baseline follows the heap objects down whenever they drop below it, so
// memory freed during the run does not widen its budget. And when an upper
// bound of the live heap (liveBound: the last cycle's live heap plus what
// was allocated since, or the heap objects, live plus garbage, whichever is
// lower) exceeds baseline + budget, the guard starts a GC cycle at once
// instead of waiting for the pacer's next one (which can be far: the pacer
// lets the heap double), and the live figure of that cycle decides; unless
// a cycle is under way already, whose figure comes first. Forced cycles run
// on their own goroutine, one at a time: a forced cycle waits for the whole
// heap to be swept, and the guard must keep sampling meanwhile. A program
// that only churns garbage costs an extra GC cycle now and then, never a
// kill.
//
// What it does and does not promise:
//
//   - Attribution is a heuristic. The heap is shared, so the guard blames,
//     among the runs over budget, the one that has spent the most time
//     executing JavaScript (a run parked on a tool call allocates nothing).
//     A bomb running next to quiet programs is the one killed; two heavy
//     programs running together can be blamed for each other's memory.
//   - What a persistent environment retains between runs is estimated when
//     each run ends (growth) and counts against the budget of its later
//     runs (watched.budget) and against the runtime's memory governor.
//     Garbage present when a run starts widens that run's budget by as
//     much (the baseline errs on the generous side, so a run is never
//     blamed for a neighbour's garbage or for an abandoned VM still
//     holding memory).
//   - Overshoot: a run is caught when the GC cycle started after it crossed
//     its budget ends, so it overshoots by what it allocates during one
//     cycle (its own live heap slows it down through GC assists).
//     BenchmarkMemoryGuardOvershoot measures it. One built-in call that
//     allocates in proportion to its input (a string concatenation,
//     JSON.stringify, replace, …) asks first: goja's allocation check (a
//     codemode patch, runtime/internal/goja/alloc.go) calls allocate, which
//     applies the same rule to the heap plus the allocation and kills the
//     run before it allocates. The array and typed-array built-ins are
//     size-checked by the prelude instead.
//   - A built-in that runs on after its run was killed (deadline, memory,
//     cancellation) unwinds at its next allocation check, which honours
//     the interrupt; one that allocates nothing it checks (a regexp2
//     backtrack, a sort) runs until it returns or its own bound stops it,
//     and the run is abandoned at the deadline meanwhile.
type guard struct {
	interval time.Duration

	mu   sync.Mutex
	runs map[*watched]struct{}
	wake chan struct{}
	// alarm wakes the guard one interval after the first run started. Waking
	// it at once would cost every run, most of which end within
	// microseconds, a goroutine wake-up on another core; and the guard's
	// first sample came one interval in anyway.
	alarm *time.Timer

	endedJS int64 // JavaScript time of the runs no longer watched; under mu

	gcBusy atomic.Bool     // a forced GC is in flight
	gcWG   sync.WaitGroup  // forced GCs, waited for when the guard stops
	stop   <-chan struct{} // loop's, for the goroutines it starts

	statsMu sync.Mutex
	kills   []killRecord // recent kills, for tests and benchmarks
}

// killRecord describes one MEMORY_LIMIT kill.
type killRecord struct {
	heap, live, baseline uint64
	limit                int64
}

// heapSample is one reading of the heap figures. allocs and marking are
// read by the guard's loop only (newLoopSamples).
type heapSample struct {
	objects, live, cycles, allocs uint64
	marking                       bool   // a GC cycle is under way
	goal                          uint64 // the heap the next cycle aims to end at (loop samples only; 0 unknown)
}

// liveBound is the sampling's upper bound of the live heap: the heap
// objects (live plus garbage not yet swept or collected), or, once a GC
// cycle has been seen to end, the live heap that cycle marked plus every
// byte allocated since, whichever is lower. Right after a cycle the heap
// objects still count all of its unswept garbage: judged by them, a run
// whose live heap is well under its budget looked over it, and the guard
// forced a cycle back to back with the one that had just ended (issue 18's
// sort of 1.5M numbers: four forced cycles of up to 216 ms in 0.8 s, the
// process running flat out on both cores while a canary's request waited).
//
// The cycle marked everything allocated before it ended (allocation during
// marking is black), so the live heap now is at most that figure plus what
// was allocated since; the allocations counted from the sample before the
// cycle was seen to end are at least that. It is read on the guard's
// goroutine only.
type liveBound struct {
	seen    bool   // a sample was taken
	cycles  uint64 // GC cycles at the last sample
	allocs  uint64 // cumulative allocations at the last sample
	known   bool   // a cycle was seen to end: atCycle holds
	atCycle uint64 // cumulative allocations before the last cycle ended
}

// next takes a sample and returns the bound.
func (b *liveBound) next(h heapSample) uint64 {
	if b.seen && h.cycles != b.cycles {
		b.known, b.atCycle = true, b.allocs
	}
	b.seen, b.cycles, b.allocs = true, h.cycles, h.allocs
	if !b.known || h.allocs < b.atCycle {
		return h.objects
	}
	return min(h.objects, h.live+(h.allocs-b.atCycle))
}

func newGuard(interval time.Duration) *guard {
	g := &guard{interval: interval, runs: map[*watched]struct{}{}, wake: make(chan struct{}, 1)}
	g.alarm = time.AfterFunc(time.Hour, g.signal)
	g.alarm.Stop()
	return g
}

func (g *guard) signal() {
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

const (
	objectsMetric = "/memory/classes/heap/objects:bytes" // live + unswept
	liveMetric    = "/gc/heap/live:bytes"                // marked live by the last GC
	cyclesMetric  = "/gc/cycles/total:gc-cycles"
	allocsMetric  = "/gc/heap/allocs:bytes" // cumulative
	pausesMetric  = "/sched/pauses/total/gc:seconds"
	goalMetric    = "/gc/heap/goal:bytes"
)

// readHeap reads both figures. Reading runtime/metrics does not stop the
// world.
func readHeap(s []metrics.Sample) heapSample {
	metrics.Read(s)
	var h heapSample
	if s[0].Value.Kind() == metrics.KindUint64 {
		h.objects = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		h.live = s[1].Value.Uint64()
	}
	if s[2].Value.Kind() == metrics.KindUint64 {
		h.cycles = s[2].Value.Uint64()
	}
	if len(s) > 3 && s[3].Value.Kind() == metrics.KindUint64 {
		h.allocs = s[3].Value.Uint64()
	}
	if len(s) > 4 && s[4].Value.Kind() == metrics.KindFloat64Histogram {
		var n uint64
		for _, c := range s[4].Value.Float64Histogram().Counts {
			n += c
		}
		h.marking = marking(n, h.cycles)
	}
	if len(s) > 5 && s[5].Value.Kind() == metrics.KindUint64 {
		h.goal = s[5].Value.Uint64()
	}
	return h
}

// marking reports whether a GC cycle is under way, from the GC's
// stop-the-world pauses (two per cycle: one at its start, one at its end)
// and the cycles completed: one pause more than twice the cycles. Any
// other count (the end's pause is counted just after the cycle) says no,
// so that a runtime that counts them otherwise only costs the guard the
// forced cycles it would have started anyway.
func marking(pauses, cycles uint64) bool { return pauses == 2*cycles+1 }

func newSamples() []metrics.Sample {
	return []metrics.Sample{{Name: objectsMetric}, {Name: liveMetric}, {Name: cyclesMetric}, {Name: allocsMetric}}
}

// newLoopSamples adds the GC's pauses, which the guard's loop needs to
// know whether a cycle is under way, and the heap goal.
func newLoopSamples() []metrics.Sample {
	return append(newSamples(), metrics.Sample{Name: pausesMetric}, metrics.Sample{Name: goalMetric})
}

// add starts watching a run with the given budget, of which its
// environment already holds retained; pause runs a function on the run's
// goroutine between two steps of its program (nil: kills are not
// confirmed there).
func (g *guard) add(r *engine.Run, limit, retained int64, pause func(func())) *watched {
	h := readHeap(newSamples())
	w := &watched{g: g, run: r, limit: limit, retained: retained, pause: pause, finished: make(chan struct{}), baseline: h.objects, startCycles: h.cycles}
	g.mu.Lock()
	w.jsBefore = g.jsTime(time.Now().UnixNano())
	g.runs[w] = struct{}{}
	if len(g.runs) == 1 {
		g.alarm.Reset(g.interval)
	}
	g.mu.Unlock()
	return w
}

// remove stops watching a run, whose VM has let go of it, and reports
// whether the guard killed it.
func (g *guard) remove(w *watched) bool {
	g.mu.Lock()
	delete(g.runs, w)
	g.endedJS += w.jsTime(time.Now().UnixNano())
	if len(g.runs) == 0 {
		g.alarm.Stop()
	}
	g.mu.Unlock()
	close(w.finished)
	return w.killed.Load()
}

// jsTime is the JavaScript time of every run so far, watched or not,
// under g.mu.
func (g *guard) jsTime(now int64) int64 {
	t := g.endedJS
	for r := range g.runs {
		t += r.jsTime(now)
	}
	return t
}

// window is what a persistent runtime's runs have done since its
// retention was last measured: measuring after every run would cost each
// one a GC cycle, so runs add up until their growth is worth one.
type window struct {
	open     bool
	base     uint64 // heap objects during its first run, at their lowest
	jsBefore int64  // every run's JavaScript time when it opened
	ownJS    int64  // this runtime's runs' JavaScript time since
}

// measureFloor is the heap growth, since a persistent runtime's retention
// was last measured, at which a run's end pays a GC cycle to measure it
// again: the budget / 64 (4 MiB at the default 256 MiB; at least 1 MiB),
// or, when the live heap is large, an eighth of it, up to the budget / 8.
// A forced cycle costs in proportion to the live heap, so it is paid once
// per a share of it, as the Go pacer itself does; the price is that a
// runtime's retention may be undercounted by up to an eighth of its
// budget between measurements.
func measureFloor(limit int64, live uint64) uint64 {
	return uint64(max(1<<20, limit>>6, min(int64(live>>3), limit>>3)))
}

// growth estimates what w's run, which ended without being killed, and
// the runs of the same persistent runtime since the last measurement left
// it holding. It adds the run to the window; when the heap objects have
// grown by measureFloor since the window opened, it forces a GC cycle and
// returns the live heap less the window's baseline (the heap objects when
// it opened, an upper bound of the live heap then), times the share of
// the JavaScript time every run spent meanwhile that was this runtime's
// (the guard's attribution rule: growth while a neighbour ran is mostly
// the neighbour's), and closes the window. Otherwise it returns 0 and the
// window stays open: a program that keeps a little each time is measured
// once the little adds up. It never returns less than 0: what a program
// frees is not credited back, since garbage present when a window opens
// would look like freed memory. Garbage present when a window opens is
// counted as baseline, so that window's growth is undercounted by as much,
// once (the measuring GC leaves little for the next window).
//
// It runs on the VM's goroutine, before the run's result returns: the GC
// costs that run time in proportion to the live heap, once per
// measureFloor of growth (an eighth of the live heap when it is large).
func (g *guard) growth(w *watched, win *window) int64 {
	sample := newSamples()
	h := readHeap(sample)
	now := time.Now().UnixNano()
	g.mu.Lock()
	base := min(w.baseline, h.objects)
	own := w.jsTime(now)
	g.mu.Unlock()
	if !win.open {
		// The base is not lowered by later runs: a GC between them would
		// make the growth of the window so far look like the baseline.
		*win = window{open: true, base: base, jsBefore: w.jsBefore}
	}
	win.ownJS += own
	if h.objects <= win.base || h.objects-win.base < measureFloor(w.limit, h.live) {
		return 0
	}
	runtime.GC()
	h = readHeap(sample)
	now = time.Now().UnixNano()
	g.mu.Lock()
	others := g.jsTime(now) - win.jsBefore - win.ownJS
	g.mu.Unlock()
	ownJS, wbase := win.ownJS, win.base
	*win = window{}
	if h.live <= wbase {
		return 0
	}
	grew := float64(h.live - wbase)
	if others > 0 && ownJS+others > 0 {
		grew *= float64(ownJS) / float64(ownJS+others)
	}
	return int64(grew)
}

func (g *guard) active() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.runs)
}

// collect starts a GC on another goroutine unless one is in flight: a
// forced cycle waits for the whole heap to be swept, and the guard must keep
// sampling while a bomb goes on.
func (g *guard) collect() {
	if !g.gcBusy.CompareAndSwap(false, true) {
		return
	}
	g.gcWG.Add(1)
	go func() {
		defer g.gcWG.Done()
		defer g.gcBusy.Store(false)
		runtime.GC()
	}()
}

// loop samples while runs are active and sleeps otherwise, until stop.
func (g *guard) loop(stop <-chan struct{}) {
	defer g.gcWG.Wait()
	defer g.alarm.Stop()
	g.stop = stop
	sample := newLoopSamples()
	var bound liveBound
	// quiet is the cumulative allocations at the last sample taken while no
	// GC cycle was under way; when a sample sees that cycles have ended
	// since the one before, what was allocated since quiet is an upper
	// bound of what the last of them marked black, and black holds it for
	// as long as that cycle's live figure is the current one (condemn).
	var quiet, black, cycles, prevAllocs uint64
	black = math.MaxUint64 // no cycle seen to start yet
	for {
		if g.active() == 0 {
			select {
			case <-stop:
				return
			case <-g.wake:
			}
			continue
		}
		// The alarm fired an interval after the first run started: sample
		// now, then every interval.
		t := time.NewTicker(g.interval)
		for first := true; g.active() > 0; first = false {
			if !first {
				select {
				case <-stop:
					t.Stop()
					return
				case <-t.C:
				}
			}
			h := readHeap(sample)
			live := bound.next(h)
			if h.cycles != cycles {
				if cycles != 0 {
					black = h.allocs - min(quiet, h.allocs)
				}
				cycles = h.cycles
			}
			if !h.marking {
				quiet = h.allocs
			}
			soon := naturalSoon(h, h.allocs-min(prevAllocs, h.allocs))
			prevAllocs = h.allocs
			if victim := g.check(h, black); victim != nil {
				g.afterKill(victim)
			} else if r := g.suspect(h, live, soon); r != nil && !h.marking && !g.ask(r, h) {
				// Garbage or a bomb? The next live figure tells. While a
				// cycle is under way its figure comes first: runtime.GC
				// would wait for it and then run a whole cycle more.
				g.collect()
			}
		}
		t.Stop()
	}
}

// suspect reports whether some run may have passed its ceiling (the live
// bound, liveBound, over its baseline plus its budget) without a fresh live
// figure to confirm it, and the collector's own next cycle would not bring
// one in time: it is not about to start (soon, naturalSoon), or its heap
// goal lies past the run's baseline plus naturalSlack of its budget.
//
// A forced cycle started here runs beside a program that keeps allocating,
// and on two cores it is the costliest moment for everyone else: a canary
// session's 5 ms request waited 141–175 ms while both Ps ran mark workers
// in one (issue 18's sort of 1.5M numbers, traced; docs/engines.md,
// "Canary steps"). A natural cycle that ends before the heap passes the
// goal gives the same live figure, which check then judges.
func (g *guard) suspect(h heapSample, bound uint64, soon bool) *watched {
	g.mu.Lock()
	defer g.mu.Unlock()
	for r := range g.runs {
		if !liveOver(h, r) && grown(bound, r.baseline, r.budget()) {
			if soon && h.goal > 0 && !grown(h.goal, r.baseline, r.budget()+r.budget()/naturalSlack) {
				continue
			}
			return r
		}
	}
	return nil
}

// ask has the suspect run r confirm at its next step: a GC cycle run on
// its own goroutine (confirm), which it pays for and during which it
// cannot allocate, instead of one forced beside it from the guard's
// goroutine while it goes on allocating. The latter is the worst case for
// every other goroutine of the process: in a Go program that grows a
// slice of 1.5·10⁶ boxed floats, a goroutine waking every 2 ms was late by
// up to 215–406 ms with cycles forced from another goroutine every 50 ms,
// and 105–167 ms, as with no forced cycle (84–166), with twice as many
// cycles forced by the allocating goroutine itself (load ~8, three rounds
// each). It reports false when r cannot be asked (no VM to pause it) or
// was asked askWait ago and has not answered (a built-in that reaches no
// step): the caller then forces the cycle itself, as before.
func (g *guard) ask(r *watched, h heapSample) bool {
	now := time.Now().UnixNano()
	g.mu.Lock()
	if r.pause == nil {
		g.mu.Unlock()
		return false
	}
	if r.confirming {
		waiting := r.askedAt == 0 || now-r.askedAt < int64(askWait)
		g.mu.Unlock()
		return waiting
	}
	r.confirming, r.confirmAt, r.askedAt = true, h.cycles, now
	g.mu.Unlock()
	r.pause(func() {
		select {
		case <-r.finished:
		default:
			r.confirm()
		}
	})
	return true
}

// askWait is how long ask waits for a suspect run to reach a step before
// the guard forces the cycle from its own goroutine.
const askWait = 20 * time.Millisecond

// naturalSlack: the collector's next cycle stands in for a forced one
// when its heap goal is within the budget plus a naturalSlack-th of it
// over a run's baseline.
const naturalSlack = 4

// naturalSoon reports whether the collector's next cycle is about to
// start: the heap is at its goal, or the allocations since the last sample
// (allocated) would reach it within naturalSamples more. A program that
// stops allocating never brings the next cycle, so its suspect figure is
// confirmed by a forced one as before.
func naturalSoon(h heapSample, allocated uint64) bool {
	if h.goal == 0 || allocated == 0 {
		return false
	}
	return h.objects >= h.goal || allocated*naturalSamples >= h.goal-h.objects
}

// naturalSamples is how many samples ahead naturalSoon looks (at the
// default 2 ms interval, 50 ms).
const naturalSamples = 25

// afterKill collects once the killed run's VM lets go, so the memory
// comes back soon, without holding up the caller.
func (g *guard) afterKill(victim *watched) {
	g.gcWG.Add(1)
	go func() {
		defer g.gcWG.Done()
		select {
		case <-victim.finished:
			g.collect()
		case <-g.stop:
		}
	}()
}

// check kills at most one run over its budget and returns it; black is an
// upper bound of what the GC cycle behind h's live figure marked live only
// because it was allocated while the cycle ran (condemn).
//
// Among the runs over budget it blames the one that spent the most time in
// JavaScript. Runs already killed (by the guard, a deadline, a
// cancellation) stay candidates while their VM is busy: one abandoned in a
// built-in that keeps allocating is the likeliest cause of the growth every
// later run sees, and when it is the one to blame nobody else is killed
// (it was, once, and its memory comes back when the built-in returns).
// Skipping it instead made an innocent run in another session take its
// MEMORY_LIMIT.
func (g *guard) check(h heapSample, black uint64) *watched {
	now := time.Now().UnixNano()
	var victim *watched
	var best int64 = -1
	g.mu.Lock()
	for r := range g.runs {
		// Memory freed since the run started (a neighbour's garbage, an
		// abandoned VM finally let go) must not widen its budget.
		r.baseline = min(r.baseline, h.objects)
		if !liveOver(h, r) {
			continue
		}
		if t := r.jsTime(now); t > best {
			victim, best = r, t
		}
	}
	g.mu.Unlock()
	if victim == nil || !g.condemn(victim, h, black) {
		return nil
	}
	return victim
}

// condemn kills victim, whose run the live figure h.live puts over its
// budget, if that figure is proof, and reports whether it did; otherwise it
// asks the run to confirm (confirm), and the kill, if any, comes from there.
//
// A GC cycle counts as live everything allocated while it marks, garbage
// or not (allocation during marking is black). So a program that builds a
// structure by doubling it (an array grown by push, a string by +=) can
// look over its budget by the garbage it made during the cycle: a false
// MEMORY_LIMIT (issue 18: the conformance case "sort refusal is
// catchable" failed about one run in 40). h.live less black (what was
// allocated, by anyone, since before the cycle began) is a lower bound of
// what was live: when even that is over, the figure is proof. When it is
// not, the run itself runs a GC cycle at its next step (its goja
// safepoint), during which it cannot allocate: that cycle's live figure has
// none of the run's garbage, and it decides. The program is paused for the
// cycle, so a real bomb grows no further meanwhile (waiting instead for the
// next cycle of the pacer or the guard let bombs grow one cycle longer:
// 2.13x their budget once). A run that reaches no step for two cycles (a
// long built-in) is judged by the figure it has.
func (g *guard) condemn(victim *watched, h heapSample, black uint64) bool {
	g.mu.Lock()
	v := victim.verdict(h, black)
	if v == verdictAsk {
		victim.confirming, victim.confirmAt, victim.askedAt = true, h.cycles, 0
	}
	g.mu.Unlock()
	switch v {
	case verdictKill:
		return g.kill(victim, h)
	case verdictAsk:
		victim.pause(func() {
			select {
			case <-victim.finished:
				// The run ended before its VM reached a step, and the
				// request outlived it into the VM's next run.
			default:
				victim.confirm()
			}
		})
	}
	return false
}

// condemn's verdicts.
const (
	verdictKill  = iota // the figure is proof
	verdictClear        // the run's clean figure and what was allocated since say no
	verdictAsk          // the run confirms at its next step
	verdictWait         // the run was asked and has not answered yet
)

// verdict is condemn's decision about w, which the live figure of h puts
// over its budget, under g.mu.
func (w *watched) verdict(h heapSample, black uint64) int {
	if w.pause == nil || grown(h.live-min(black, h.live), w.baseline, w.budget()) {
		return verdictKill
	}
	if w.clean && h.allocs >= w.cleanAllocs && !grown(w.cleanLive+(h.allocs-w.cleanAllocs), w.baseline, w.budget()) {
		// The last clean figure plus everything allocated since is under
		// the budget: no need to ask (a bomb is asked about when it nears
		// its budget and when it passes it, not at every cycle).
		return verdictClear
	}
	if w.confirming {
		if h.cycles >= w.confirmAt+2 {
			return verdictKill // stuck in a built-in for two cycles
		}
		return verdictWait
	}
	return verdictAsk
}

// markClean records h, read after a GC cycle run on the VM's goroutine,
// as the run's clean figure.
func (w *watched) markClean(h heapSample) {
	w.g.mu.Lock()
	w.clean, w.cleanLive, w.cleanAllocs = true, h.live, h.allocs
	w.g.mu.Unlock()
}

// confirm runs on the run's goroutine, between two steps of its program
// (condemn): a GC cycle during which the run cannot allocate, whose live
// figure kills it or clears it.
func (w *watched) confirm() {
	g := w.g
	runtime.GC()
	if w.samples == nil {
		w.samples = newLoopSamples()
	}
	h := readHeap(w.samples)
	g.mu.Lock()
	w.baseline = min(w.baseline, h.objects)
	w.confirming = false
	w.clean, w.cleanLive, w.cleanAllocs = true, h.live, h.allocs
	over := liveOver(h, w) // baseline is check's too: under g.mu
	g.mu.Unlock()
	w.gcObjects = h.objects
	if over && g.kill(w, h) {
		g.afterKill(w)
	}
}

// kill ends a run over its budget with MEMORY_LIMIT, unless it was killed
// already (by the guard, a deadline, a cancellation), and reports whether
// it did.
func (g *guard) kill(victim *watched, h heapSample) bool {
	// The guard's goroutine and a run's own allocate may both get here.
	if victim.run.Killed() || !victim.killed.CompareAndSwap(false, true) {
		return false
	}
	g.mu.Lock()
	base := victim.baseline // check and allocate lower it under g.mu
	g.mu.Unlock()
	msg := fmt.Sprintf("the program exceeded its memory budget of %d MiB", victim.limit>>20)
	if victim.retained > 0 {
		msg += fmt.Sprintf(" (its environment already held about %d MiB from earlier programs)", victim.retained>>20)
	}
	victim.run.Kill(&errs.Error{
		Code:    errs.CodeMemoryLimit,
		Message: msg,
		Info:    map[string]any{"heapBytes": h.objects, "liveBytes": h.live, "baselineBytes": base, "retainedBytes": victim.retained},
	})
	g.statsMu.Lock()
	g.kills = append(g.kills, killRecord{heap: h.objects, live: h.live, baseline: base, limit: victim.limit})
	if len(g.kills) > 64 {
		g.kills = g.kills[1:]
	}
	g.statsMu.Unlock()
	return true
}

// liveOver reports whether a GC cycle that ended after run r started found
// the live heap past r's budget.
func liveOver(h heapSample, r *watched) bool {
	return h.cycles > r.startCycles && grown(h.live, r.baseline, r.budget())
}

func grown(now, base uint64, limit int64) bool {
	return now > base && int64(now-base) > limit
}

// allocMin is the smallest allocation a run's AllocationCheck is asked
// about: the budget / 256 (256 KiB at 64 MiB), at least 64 KiB. Smaller
// ones are the sampling's: they cannot overshoot by much before the next
// sample, and asking costs a read of the runtime's metrics.
func allocMin(limit int64) int64 { return max(64<<10, limit>>8) }

// errOverBudget is what allocate returns once it has killed its run: goja
// unwinds the script as for an interrupt, and the run's kill (MEMORY_LIMIT)
// is its outcome.
var errOverBudget = errors.New("goja engine: an allocation over the memory budget")

// paceMin and paceMax: an allocation of at least paceMin bytes asked for
// while a GC cycle marks waits for the cycle to end, at most paceMax. Made
// during the cycle, it would owe its share of the marking at once (Go's
// assist credit is charged by the bytes asked for), and a program growing
// an array by megabytes marked the heap itself for 50–120 ms in one piece
// while a mark worker held the other P and another session's request
// waited for both (docs/engines.md, "Canary steps"). Waiting frees the P:
// the cycle ends on the collector's workers, and the allocation is then
// charged nothing.
const (
	paceMin = 1 << 20
	paceMax = 25 * time.Millisecond
)

// pace waits for the GC cycle under way to end (paceMax at most) and
// returns the heap figures read last.
func (w *watched) pace() heapSample {
	deadline := time.Now().Add(paceMax)
	for {
		time.Sleep(200 * time.Microsecond)
		h := readHeap(w.samples)
		if !h.marking || time.Now().After(deadline) {
			return h
		}
	}
}

// allocate is the run's goja AllocationCheck (runtime/internal/goja's
// alloc.go, a codemode patch): a built-in is about to allocate n bytes in
// one piece (a string concatenation, JSON.stringify's output, replace's
// result, …), which the sampling would only see once done, several times
// the budget later. It applies the sampling's rule to the heap as it will
// be: the run is over when the live heap plus n exceeds its baseline plus
// its budget. The heap objects include garbage, so when they say "over",
// a GC cycle decides (at most one forced cycle per eighth of the budget of
// growth, so a program churning big strings near its budget does not pay
// one per allocation; between two, the last live figure stands). When the
// run is over, the guard's blame rule picks who pays: this run, killed
// here with MEMORY_LIMIT before the allocation happens, or another run over
// budget that spent more time in JavaScript, killed instead while this
// allocation goes ahead.
func (w *watched) allocate(n int64) error {
	g := w.g
	budget := w.budget()
	if n > budget {
		return w.refuse(heapSample{})
	}
	if w.samples == nil {
		w.samples = newLoopSamples()
	}
	h := readHeap(w.samples)
	if n >= paceMin && h.marking {
		h = w.pace()
	}
	g.mu.Lock()
	w.baseline = min(w.baseline, h.objects)
	base := w.baseline
	g.mu.Unlock()
	if !grown(h.objects+uint64(n), base, budget) {
		return nil
	}
	forced := false
	if w.gcObjects == 0 || h.objects >= w.gcObjects+uint64(budget>>3) || h.cycles <= w.startCycles {
		runtime.GC()
		h = readHeap(w.samples)
		w.gcObjects, forced = h.objects, true
		w.markClean(h)
	}
	if !grown(h.live+uint64(n), base, budget) {
		return nil
	}
	if !forced {
		// The last live figure may come from a cycle that ran while this
		// run allocated (condemn): one that ran here, where it cannot,
		// decides.
		runtime.GC()
		h = readHeap(w.samples)
		w.gcObjects = h.objects
		w.markClean(h)
		if !grown(h.live+uint64(n), base, budget) {
			return nil
		}
	}
	// Over. Who pays is the sampling's rule (check): the run over budget
	// that spent the most time in JavaScript.
	now := time.Now().UnixNano()
	victim, best := w, w.jsTime(now)
	g.mu.Lock()
	for r := range g.runs {
		if r != w && liveOver(h, r) {
			if t := r.jsTime(now); t > best {
				victim, best = r, t
			}
		}
	}
	g.mu.Unlock()
	if victim != w {
		// That run may have allocated while this cycle ran: it confirms
		// on its own goroutine, unless the figure is proof.
		if g.condemn(victim, h, math.MaxUint64) {
			g.afterKill(victim)
		}
		return nil
	}
	return w.refuse(h)
}

// refuse kills the run (unless a deadline or a cancellation got there
// first: then that is its outcome) and returns errOverBudget.
func (w *watched) refuse(h heapSample) error {
	if h == (heapSample{}) {
		h = readHeap(newSamples())
	}
	w.g.kill(w, h)
	return errOverBudget
}
