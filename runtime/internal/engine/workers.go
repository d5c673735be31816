package engine

import (
	"sync"
	"time"
)

// workerIdle is how long an idle worker waits for the next function.
const workerIdle = time.Second

// Workers runs functions on goroutines of their own, reusing idle ones.
// An engine runs each program's VM work through it: a fresh goroutine
// spends microseconds of every run growing its stack by copying (goja
// recurses deeply, wazero's host calls reach down into the registry), and
// a reused one has grown it already. Keeping the VM off the caller's
// goroutine also lets Run return at the deadline while the VM is stuck
// (in a built-in, or in a tool that ignores cancellation).
//
// The goroutines are not tracked: one stuck in its function must not hold
// up Close. Idle ones end after a second, or at Close.
type Workers struct {
	mu      sync.Mutex
	idle    []*worker // most recently idle last: its stack is the warmest
	stop    chan struct{}
	once    sync.Once
	idleFor time.Duration
}

type worker struct{ tasks chan task }

// task is a worker's function and what follows it once the worker is
// idle again. A run is one (Run.work, Run.then): no closure per run.
type task interface {
	work()
	then()
}

type funcTask struct{ f, after func() }

func (t funcTask) work() { t.f() }
func (t funcTask) then() {
	if t.after != nil {
		t.after()
	}
}

// NewWorkers returns an empty set of workers.
func NewWorkers() *Workers {
	return &Workers{stop: make(chan struct{}), idleFor: workerIdle}
}

// Go runs f on an idle worker, or on a new one, and then, once the worker
// is idle again, then (if not nil). A caller that waits for its result in
// then finds the worker ready for its next Go; a result sent from f would
// often wake the caller before the worker is back, and every run would
// start a goroutine.
func (w *Workers) Go(f, then func()) { w.goTask(funcTask{f, then}) }

func (w *Workers) goTask(t task) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		wk := w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		wk.tasks <- t // buffered: never blocks
		return
	}
	w.mu.Unlock()
	go w.loop(&worker{tasks: make(chan task, 1)}, t)
}

// Close ends the idle workers; busy ones end when their function returns.
func (w *Workers) Close() { w.once.Do(func() { close(w.stop) }) }

func (w *Workers) loop(wk *worker, t task) {
	timer := time.NewTimer(w.idleFor)
	defer timer.Stop()
	for {
		t.work()
		w.mu.Lock()
		w.idle = append(w.idle, wk)
		w.mu.Unlock()
		t.then()
		t = nil // let the run be collected while idle
		timer.Reset(w.idleFor)
		select {
		case t = <-wk.tasks:
			continue
		case <-timer.C:
		case <-w.stop:
		}
		if w.retire(wk) {
			return
		}
		t = <-wk.tasks // Go took this worker just now: its task is on the way
	}
}

// retire takes wk off the idle list, reporting false when Go has just
// taken it.
func (w *Workers) retire(wk *worker) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, x := range w.idle {
		if x == wk {
			w.idle = append(w.idle[:i], w.idle[i+1:]...)
			return true
		}
	}
	return false
}
