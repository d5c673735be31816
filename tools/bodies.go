package tools

import (
	"sync"
	"time"
)

// bodyIdle is how long a body goroutine waits for the next body before it
// ends: long enough for a client's calls in a row and a program's nested
// calls, short enough that a process (or a test checking for leaked
// goroutines) soon sees none once calls stop.
const bodyIdle = 100 * time.Millisecond

// bodies runs tool bodies (dispatch) on goroutines kept between calls. A
// goroutine made for each body starts on the smallest stack and grows it
// by copying, frame by frame, as the body goes deeper (code_run's argument
// decoding, the environment's run): ~7–9% of `codemode serve`'s CPU per
// `return 1 + 1` (docs/benchmarks.md, "The stdio path, round 4"). A kept
// goroutine keeps its grown stack (until a GC cycle finds most of it
// unused and halves it). A body that ignores its context keeps its
// goroutine, as before, and the goroutine comes back when the body
// returns.
type bodies struct {
	mu   sync.Mutex
	idle []chan func()
}

var bodyPool bodies

// run runs f on an idle body goroutine, or on a new one.
func (p *bodies) run(f func()) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		ch := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		ch <- f // buffered, and only run hands it work: never blocks
		return
	}
	p.mu.Unlock()
	go p.loop(make(chan func(), 1), f)
}

func (p *bodies) loop(ch chan func(), f func()) {
	var timer *time.Timer
	for {
		f()
		f = nil // let the body's closure go while idle
		p.mu.Lock()
		p.idle = append(p.idle, ch)
		p.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(bodyIdle)
		} else {
			timer.Reset(bodyIdle)
		}
		select {
		case f = <-ch:
			continue
		case <-timer.C:
		}
		p.mu.Lock()
		for i, c := range p.idle {
			if c == ch {
				p.idle = append(p.idle[:i], p.idle[i+1:]...)
				p.mu.Unlock()
				return
			}
		}
		// run took this goroutine between the timer and the lock: its
		// body is on the way.
		p.mu.Unlock()
		f = <-ch
	}
}
