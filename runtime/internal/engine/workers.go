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
	work chan func()
	stop chan struct{}
	once sync.Once
}

// NewWorkers returns an empty set of workers.
func NewWorkers() *Workers {
	return &Workers{work: make(chan func()), stop: make(chan struct{})}
}

// Go runs f on an idle worker, or on a new one.
func (w *Workers) Go(f func()) {
	select {
	case w.work <- f:
	default:
		go w.loop(f)
	}
}

// Close ends the idle workers; busy ones end when their function returns.
func (w *Workers) Close() { w.once.Do(func() { close(w.stop) }) }

func (w *Workers) loop(f func()) {
	t := time.NewTimer(workerIdle)
	defer t.Stop()
	for {
		f()
		f = nil // let the run be collected while idle
		t.Reset(workerIdle)
		select {
		case f = <-w.work:
		case <-t.C:
			return
		case <-w.stop:
			return
		}
	}
}
