package runtime

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
)

// A program's deadline is a clock that can be held. Time a nested call
// spends waiting for a person (an approval) is not the program's: the
// approver holds the clock ([HoldDeadline]) while it waits, bounded by its
// own timeout, and the program gets the rest of its time afterwards.
//
// The engines see only a context. Run hands them a clock, a context whose
// Done closes when the program's time is up (Err is then
// context.DeadlineExceeded, so both engines report TIMEOUT as they always
// did) and whose Deadline is only the caller's, never the program's own:
// an engine that armed a timer at a fixed instant could not be held.
// Job.Deadline is left zero for the same reason. So goja, which kills a run
// when its context ends (context.AfterFunc), and wazero, whose interrupt
// handler polls ctx.Err and whose event loop waits on ctx.Done, both honour
// a held clock without a line of engine code. Contexts the engines derive
// from it (nested calls') end with it: the clock implements AfterFunc, so
// the context package propagates cancellation without a goroutine.

// clockKey finds a run's clock in a nested call's context.
type clockKey struct{}

// clock is a program's holdable deadline; it is also the context the
// engines run the program under.
type clock struct {
	parent context.Context
	inner  context.Context // ends when the time is up or the parent ends
	cancel context.CancelFunc

	expired atomic.Bool // the time was up (Err is DeadlineExceeded)

	mu       sync.Mutex
	timer    *time.Timer
	deadline time.Time     // when no hold is in force
	left     time.Duration // while held: the program's time left
	holds    int
	since    time.Time     // when the current hold began
	held     time.Duration // total time held so far
	stopped  bool

	source string // the user's program, for CallSite
}

// newClock starts a clock of d under parent. stop releases it.
func newClock(parent context.Context, d time.Duration) *clock {
	c := &clock{parent: parent, deadline: time.Now().Add(d)}
	c.inner, c.cancel = context.WithCancel(parent)
	c.timer = time.AfterFunc(d, c.fire)
	return c
}

func (c *clock) Deadline() (time.Time, bool) { return c.parent.Deadline() }
func (c *clock) Done() <-chan struct{}       { return c.inner.Done() }

func (c *clock) Err() error {
	err := c.inner.Err()
	if err != nil && c.expired.Load() {
		return context.DeadlineExceeded
	}
	return err
}

// Value answers the clock's own key and delegates the rest to the parent
// (not to inner: the context package would then adopt inner as the parent
// of derived contexts, and they would end with Canceled instead of
// DeadlineExceeded).
func (c *clock) Value(key any) any {
	if key == (clockKey{}) {
		return c
	}
	return c.parent.Value(key)
}

// AfterFunc lets context.WithCancel and context.AfterFunc on the clock
// register with it directly instead of starting a goroutine per derived
// context.
func (c *clock) AfterFunc(f func()) (stop func() bool) { return context.AfterFunc(c.inner, f) }

// fire ends the program's time, unless it is held or was moved on.
func (c *clock) fire() {
	c.mu.Lock()
	if c.holds > 0 || c.stopped || time.Now().Before(c.deadline) || c.inner.Err() != nil {
		c.mu.Unlock()
		return
	}
	c.expired.Store(true)
	c.mu.Unlock()
	c.cancel()
}

func (c *clock) hold() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.holds++
	if c.holds == 1 {
		c.timer.Stop()
		c.since = time.Now()
		c.left = c.deadline.Sub(c.since)
	}
}

func (c *clock) release() {
	c.mu.Lock()
	c.holds--
	if c.holds > 0 {
		c.mu.Unlock()
		return
	}
	now := time.Now()
	c.held += now.Sub(c.since)
	c.deadline = now.Add(c.left)
	if c.left > 0 && !c.stopped {
		c.timer.Reset(c.left)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.fire()
}

// final is the program's deadline as it stands: moved on by every hold.
func (c *clock) final() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline
}

// heldFor is how long the clock was held in all.
func (c *clock) heldFor() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds > 0 {
		return c.held + time.Since(c.since)
	}
	return c.held
}

// stop ends the clock: the program is over.
func (c *clock) stop() {
	c.mu.Lock()
	c.stopped = true
	c.timer.Stop()
	c.mu.Unlock()
	c.cancel()
}

// CallSite returns the line of the program (from 1, in the user's source)
// whose code made the nested call ctx belongs to, and that line's text; 0
// and "" when the engine does not say (the wazero engine does not yet) or
// ctx is not a nested call's.
func CallSite(ctx context.Context) (line int, text string) {
	line = engine.CallLine(ctx)
	if line <= 0 {
		return 0, ""
	}
	if c, _ := ctx.Value(clockKey{}).(*clock); c != nil {
		s := c.source
		for n := 1; n < line; n++ {
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return line, ""
			}
			s = s[i+1:]
		}
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[:i]
		}
		return line, strings.TrimRight(s, "\r")
	}
	return line, ""
}

// HoldDeadline stops the clock of the program whose nested call ctx
// belongs to, until release is called: time spent waiting for a person
// does not count against the program's timeout. Holds nest (concurrent
// calls may each hold); the clock runs again when the last is released,
// with the time the program had left. release is idempotent.
//
// The holder bounds its own wait (an approver has its own timeout): a
// held clock never expires. A ctx that is not a nested call of a running
// program (a direct call) has no clock, and release does nothing. The
// deadline of whoever called the program (the code_run call's own) is not
// held.
func HoldDeadline(ctx context.Context) (release func()) {
	c, _ := ctx.Value(clockKey{}).(*clock)
	if c == nil {
		return func() {}
	}
	c.hold()
	var once sync.Once
	return func() { once.Do(c.release) }
}
