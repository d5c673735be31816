package engine

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func (w *Workers) idleCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.idle)
}

// A worker is idle again by the time `then` runs, so a caller that waits
// in then and calls Go again reuses it.
func TestWorkersReuse(t *testing.T) {
	defer goleak.VerifyNone(t)
	w := NewWorkers()
	defer w.Close()
	done := make(chan struct{})
	for range 100 {
		w.Go(func() {}, func() {
			if n := w.idleCount(); n != 1 {
				t.Errorf("in then: %d idle workers, want 1", n)
			}
			done <- struct{}{}
		})
		<-done
	}
	if n := w.idleCount(); n != 1 {
		t.Errorf("after 100 sequential runs: %d workers, want 1", n)
	}
}

// Many concurrent callers: every function runs exactly once, its then
// after it, and idle workers retire on their own.
func TestWorkersConcurrent(t *testing.T) {
	defer goleak.VerifyNone(t)
	w := NewWorkers()
	w.idleFor = 5 * time.Millisecond // retire while others are handed work
	defer w.Close()
	var ran, thens atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				ch := make(chan struct{})
				var did bool
				w.Go(func() { did = true; ran.Add(1) }, func() {
					if !did {
						t.Error("then ran before f")
					}
					thens.Add(1)
					close(ch)
				})
				<-ch
				if ran.Load()%97 == 0 {
					time.Sleep(6 * time.Millisecond) // let some retire
				}
			}
		})
	}
	wg.Wait()
	if ran.Load() != 4000 || thens.Load() != 4000 {
		t.Fatalf("ran %d, thens %d, want 4000 each", ran.Load(), thens.Load())
	}
	deadline := time.Now().Add(5 * time.Second)
	for w.idleCount() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := w.idleCount(); n != 0 {
		t.Errorf("%d idle workers did not retire", n)
	}
}

// Close ends idle workers; a busy one ends when its function returns.
func TestWorkersClose(t *testing.T) {
	defer goleak.VerifyNone(t)
	w := NewWorkers()
	release := make(chan struct{})
	finished := make(chan struct{})
	w.Go(func() {}, nil)
	w.Go(func() { <-release }, func() { close(finished) })
	w.Close()
	w.Close()
	close(release)
	<-finished
}

func BenchmarkWorkersRoundTrip(b *testing.B) {
	w := NewWorkers()
	defer w.Close()
	ch := make(chan int, 1)
	for b.Loop() {
		w.Go(func() {}, func() { ch <- 1 })
		<-ch
	}
}
