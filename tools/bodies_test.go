package tools

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBodiesRunEachOnceAndReuse(t *testing.T) {
	var p bodies
	for _, conc := range []int{1, 8, 64} {
		var ran atomic.Int64
		var wg sync.WaitGroup
		for range 5 {
			wg.Add(conc)
			for range conc {
				p.run(func() {
					ran.Add(1)
					wg.Done()
				})
			}
			wg.Wait()
		}
		if got := ran.Load(); got != int64(5*conc) {
			t.Errorf("concurrency %d: %d bodies ran, want %d", conc, got, 5*conc)
		}
	}
	// Back to back, one body at a time reuses one goroutine.
	waitIdle(t, &p, 0)
	done := make(chan struct{})
	for range 100 {
		p.run(func() { done <- struct{}{} })
		<-done
		waitIdle(t, &p, 1)
	}
}

func TestBodiesEndWhenIdle(t *testing.T) {
	var p bodies
	block := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	for range 3 {
		p.run(func() {
			<-block
			wg.Done()
		})
	}
	close(block)
	wg.Wait()
	waitIdle(t, &p, 0)
}

// waitIdle waits until p has n idle goroutines (those over n end after
// bodyIdle).
func waitIdle(t *testing.T, p *bodies, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * bodyIdle)
	for {
		p.mu.Lock()
		got := len(p.idle)
		p.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d idle body goroutines, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}
