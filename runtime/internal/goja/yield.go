package goja

import (
	"runtime"
	"time"
)

// codemode patch (see PATCHES.md): cooperative time slices.
//
// Go's scheduler lets a running goroutine keep its P for up to 10 ms before
// it preempts it, and a goroutine made runnable behind it (on the same P's
// run queue) waits for that. A script in a tight loop therefore makes every
// other goroutine of the process that lands behind it wait up to 10 ms per
// hand-off; a request that goes through several goroutines (an HTTP
// handler, a JSON-RPC reader, a worker) waits that many slices, and on a
// 2-core machine where the other P is busy with the collector, a 5 ms
// request of another session took 60–110 ms (codemode's hostile suite,
// traced). SetYieldInterval makes the interpreter give its P up
// (runtime.Gosched) once it has run that long since it last did: every
// 1000 instructions, and at the built-ins' allocation checks and interrupt
// polls, it reads the clock, which costs nothing measurable; Gosched, when
// nobody waits, a few hundred nanoseconds.

// yieldCheck is how many times 100 instructions (the loop's profiler
// count) pass between two reads of the clock.
const yieldCheck = 10

// gosched is runtime.Gosched; tests count the calls.
var gosched = runtime.Gosched

// SetYieldInterval makes a running script yield its P to other goroutines
// after running for d since it last yielded; 0 (the default) never yields
// on purpose.
func (r *Runtime) SetYieldInterval(d time.Duration) {
	r.vm.yieldEvery = d
	r.vm.yieldLast = time.Time{}
}

// ResetYieldClock starts the interval again, from the next check: an
// embedder calls it when a script resumes after waiting (an awaited call
// that settled, a timer), so that the wait does not count as running. A
// script that had waited for 5 ms would otherwise yield at its first check
// and, behind a goroutine that does not yield (a regexp2 backtrack, another
// process's work on a single P), wait up to a whole preemption slice.
func (r *Runtime) ResetYieldClock() { r.vm.yieldLast = time.Time{} }

// maybeYield is called every 100 instructions when yielding is on.
func (vm *vm) maybeYield() {
	vm.yieldTick++
	if vm.yieldTick < yieldCheck {
		return
	}
	vm.yieldTick = 0
	vm.yieldIfDue()
}

// yieldIfDue yields if the script has run for the interval since it last
// did. Besides the interpreter's loop, the built-ins' allocation checks and
// interrupt polls call it (alloc.go), so a long built-in call (a
// JSON.stringify, a join) yields too.
func (vm *vm) yieldIfDue() {
	now := time.Now()
	if vm.yieldLast.IsZero() {
		vm.yieldLast = now
		return
	}
	if now.Sub(vm.yieldLast) >= vm.yieldEvery {
		gosched()
		vm.yieldLast = time.Now()
	}
}

// copyChunk is how many values copyValues copies between two checks of the
// yield clock: 128 KiB of interfaces.
const copyChunk = 8192

// copyValues copies src into dst (which must not overlap) as copy does, a
// chunk at a time, with a yield check between chunks when yielding is on. Go copies a slice of
// pointers in one piece that nothing preempts, and while a GC cycle marks it
// first shades every pointer of the source (the bulk write barrier): an
// array of 1.5·10⁶ values grown by push held its P for up to ~40 ms of CPU
// per growth (codemode's hostile suite, "sort of 1.5M numbers"), during
// which another session's request waited behind it.
func (r *Runtime) copyValues(dst, src []Value) int {
	n := min(len(dst), len(src))
	if n <= copyChunk || r.vm.yieldEvery <= 0 {
		return copy(dst, src)
	}
	for o := 0; o < n; o += copyChunk {
		e := min(o+copyChunk, n)
		copy(dst[o:e], src[o:e])
		r.vm.yieldIfDue()
	}
	return n
}
