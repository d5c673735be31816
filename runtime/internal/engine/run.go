package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

// Grace is the one grace period of a run. After a run is stopped (its
// deadline, its context, Env.Close, a memory kill), Run waits this long
// for the VM to notice; then the VM is hard-stopped where the engine can
// and abandoned: Run returns, the environment is discarded, and the VM is
// closed by its goroutine whenever it comes back. After a program ends,
// its cancelled nested calls get this long to return; a tool body that
// ignores cancellation is left behind (Result.LeftRunning).
const Grace = 250 * time.Millisecond

// DefaultMaxConcurrentCalls is the default of Job.MaxConcurrentCalls.
const DefaultMaxConcurrentCalls = 8

// call is one nested call: made by the program, held, queued, in flight,
// then completed with value or err.
type call struct {
	id    int
	name  string
	line  int // the program's line that made the call; 0 unknown
	args  json.RawMessage
	value json.RawMessage
	err   error
}

// Run is one program run, as its VM sees it. The VM calls Log, Call, Done,
// Fail and Expired on its driving goroutine between Begin and End, and
// Kill from any goroutine.
//
// # Nested calls
//
// The first call made while no other is held, queued or in flight is held
// back: when the program then waits for it and nothing else, the loop
// makes it on the VM's goroutine, which saves two goroutine hand-offs per
// awaited call. Any further call starts the held one too, so concurrent
// calls (Promise.all) overlap. At most Job.MaxConcurrentCalls are in
// flight; more wait in order. When the program ends, a held call and the
// queued ones that fit under the bound start (so that a call made and not
// awaited is made, and cancelled, like any other), the rest are dropped,
// and the ones in flight are cancelled and get Grace to return.
type Run struct {
	env      *env
	vm       VM
	job      *Job
	grace    time.Duration
	limit    string // the time limit, for messages
	onWorker bool   // the VM runs on a worker, so Run can abandon it
	inline   bool   // a call awaited alone may be made on the VM goroutine

	// Nested calls' context: made on the run's first call (most programs
	// make none), under killMu; cancelled when the run ends or is killed.
	ctx         context.Context
	callCtx     context.Context
	cancelCalls context.CancelFunc
	callsOver   bool // stopCalls ran: a context made now starts cancelled

	// The scheduler; the VM goroutine's alone.
	maxInFlight int
	nextID      int         // the last id given to a call or a timer
	calls       int         // the nested calls Call started (timers are not counted)
	refused     int         // calls Refused turned away, past MaxCalls
	refusal     *errs.Error // their error, made once
	held        *call
	queue       []*call // calls waiting for a slot: queue[head:]
	head        int
	inflight    int
	ready       []*call // completed on the VM goroutine
	completions chan *call
	timers      []timer     // pending timers, by due time then id
	clock       *time.Timer // wakes the loop for the first timer
	done        bool
	outcome     string
	doneErr     error

	// The kill switch.
	killMu    sync.Mutex
	killed    *errs.Error
	finished  bool // the VM goroutine is done with the run: kills are ignored
	abandoned bool
	// countedAbandoned: abandoned inside a built-in, and so counted in
	// Base.abandoned (see Capabilities.MaxAbandoned).
	countedAbandoned bool
	stuckIn          *string
	killCh           chan struct{}
	abandonCh        chan struct{}
	hard             *time.Timer
	inCall           atomic.Pointer[string] // the tool called inline right now
	running          atomic.Int32           // calls inside Job.Call right now

	// On a worker (env.Run): the result, and the channel it is handed
	// back on once the worker is idle again.
	res   Result
	resCh chan Result
}

// work and then make the run a worker's task (Workers).
func (r *Run) work() { r.res = r.run() }
func (r *Run) then() { r.resCh <- r.res }

func newRun(en *env, ctx context.Context, job *Job, onWorker bool) *Run {
	maxIn := job.MaxConcurrentCalls
	if maxIn <= 0 {
		maxIn = DefaultMaxConcurrentCalls
	}
	return &Run{
		env: en, vm: en.vm, job: job, grace: en.eng.grace, onWorker: onWorker, inline: onWorker, ctx: ctx,
		maxInFlight: maxIn, completions: make(chan *call, maxIn),
		killCh: make(chan struct{}), abandonCh: make(chan struct{}),
	}
}

// timer is one pending timer of the run (see [Run.Timer]).
type timer struct {
	id  int
	due time.Time
}

// DefaultMaxTimers is the default of Job.MaxTimers.
const DefaultMaxTimers = 1024

// Timer starts a timer of ms milliseconds and returns its id, by which
// Settle later resolves it (with undefined) when it is due; the glue
// calls the program's callback there. It returns -1 when the run already
// has Job.MaxTimers pending. Timers belong to the run: those still
// pending when the program ends are dropped, and a timer due after the
// deadline never fires (the run ends with TIMEOUT first).
func (r *Run) Timer(ms float64) int {
	maxT := r.job.MaxTimers
	if maxT <= 0 {
		maxT = DefaultMaxTimers
	}
	if len(r.timers) >= maxT {
		return -1
	}
	if !(ms >= 0) { // NaN too
		ms = 0
	}
	d := time.Duration(min(ms, 1<<40) * float64(time.Millisecond))
	r.nextID++
	t := timer{id: r.nextID, due: time.Now().Add(d)}
	i := len(r.timers)
	for i > 0 && r.timers[i-1].due.After(t.due) {
		i--
	}
	r.timers = append(r.timers, timer{})
	copy(r.timers[i+1:], r.timers[i:])
	r.timers[i] = t
	return t.id
}

// ClearTimer drops a pending timer; an id that is not one is ignored.
func (r *Run) ClearTimer(id int) {
	for i, t := range r.timers {
		if t.id == id {
			r.timers = append(r.timers[:i], r.timers[i+1:]...)
			return
		}
	}
}

// dueTimers appends the first timer due by now, if any. One at a time:
// the promise jobs a callback queues run before the next callback (as in
// Node), and a callback that ends the program leaves the other due
// timers unfired.
func (r *Run) dueTimers(batch []Settlement) []Settlement {
	if len(r.timers) == 0 || r.timers[0].due.After(time.Now()) {
		return batch
	}
	batch = append(batch, Settlement{ID: r.timers[0].id, Name: "setTimeout"})
	r.timers = append(r.timers[:0], r.timers[1:]...)
	return batch
}

// Job is the job being run.
func (r *Run) Job() *Job { return r.job }

// Config is the environment's configuration.
func (r *Run) Config() VMConfig { return r.env.cfg }

// LogSpent reports whether the run's console output is dropped from now
// on (Job.LogSpent): an engine then skips a line before formatting it.
func (r *Run) LogSpent() bool { return r.job.LogSpent != nil && r.job.LogSpent() }

// Log reports a console line, with the stacks it shows mapped to the
// user's lines.
func (r *Run) Log(level, text string) {
	if r.job.Log != nil {
		r.job.Log(level, r.logText(text))
	}
}

// AtLimit reports whether Refused would refuse a call made now, without
// counting it: an engine that reads a call's name only for the first
// refusal's message asks this first.
func (r *Run) AtLimit() bool {
	m := r.job.MaxCalls
	return m > 0 && r.calls >= m && r.job.Call != nil
}

// Refused is the first step of a nested call, before its arguments are
// serialised (a refused call reads none of them: no toJSON, no getter,
// no INVALID_ARGUMENTS): past the run's limit (Job.MaxCalls) it returns the SUBCALL_LIMIT error the call is refused
// with, at once, with no id, nothing queued and nothing allocated (one
// error value serves every refused call of the run, and the engines
// answer them all with one rejected promise); otherwise nil, and
// the engine goes on with Call. A program that makes max(MaxCalls, 1000)
// calls after the limit is stopped, as Call does. name may be "" (an
// engine that does not read it past the first refusal).
func (r *Run) Refused(name string) *errs.Error {
	if !r.AtLimit() {
		return nil
	}
	m := r.job.MaxCalls
	r.refused++
	if r.refusal == nil {
		r.refusal = errs.Errorf(errs.CodeSubcallLimit, "nested call limit reached: at most %d calls per run (call %d was %s; every later call is refused too)", m, r.calls+1, name)
	}
	if more := max(m, 1000); r.refused == more+1 {
		at := fmt.Sprintf("call %d", r.calls+r.refused)
		if name != "" {
			at += " (" + name + ")"
		}
		r.Kill(errs.Errorf(errs.CodeSubcallLimit, "nested call limit reached: at most %d calls per run, and the program made %d more after they were refused; it was stopped at %s", m, more, at))
	}
	return r.refusal
}

// Call starts a nested call (or holds or queues it) and returns its id,
// by which Settle later resolves it. line is the program's line that made
// the call, when the engine knows it (0 otherwise); it travels with the
// call's context (WithCallLine), for an approval prompt to show.
func (r *Run) Call(name string, args json.RawMessage, line int) int {
	r.nextID++
	r.calls++
	c := &call{id: r.nextID, name: name, args: args, line: line}
	if r.job.Call == nil {
		c.err = errs.Errorf(errs.CodeUnknownTool, "no tools are bound in this run (tools[%q])", name)
		r.ready = append(r.ready, c)
		return c.id
	}
	if m := r.job.MaxCalls; m > 0 && r.calls > m {
		// The runtime's wording (its recorder makes the same check). The
		// rejection is catchable; a program that goes on calling as many
		// times again (at least 1,000) is stopped with the same code.
		c.err = errs.Errorf(errs.CodeSubcallLimit, "nested call limit reached: at most %d calls per run (call %d was %s)", m, r.calls, name)
		r.ready = append(r.ready, c)
		if more := max(m, 1000); r.calls > m+more {
			r.Kill(errs.Errorf(errs.CodeSubcallLimit, "nested call limit reached: at most %d calls per run, and the program made %d more after they were refused; it was stopped at call %d (%s)", m, more, r.calls, name))
		}
		return c.id
	}
	if r.inline && r.held == nil && r.inflight == 0 && r.head == len(r.queue) {
		r.held = c
		return c.id
	}
	r.startHeld()
	r.queue = append(r.queue, c)
	r.dispatch()
	return c.id
}

// Done reports how the program's promise settled, in the encoding of the
// prelude's outcome.
func (r *Run) Done(outcome string) {
	if !r.done {
		r.done, r.outcome = true, outcome
	}
}

// Fail reports that the program ended with err (a Fault, say: the engine
// found that its exception was the memory cap's doing), in place of Done.
func (r *Run) Fail(err error) {
	if !r.done {
		r.done, r.doneErr = true, err
	}
}

// Kill stops the run with err, once: it interrupts the VM, cancels nested
// calls and, after the grace period, hard-stops and abandons the VM.
// A kill after the run ended is ignored. Any goroutine.
func (r *Run) Kill(err *errs.Error) {
	r.killMu.Lock()
	defer r.killMu.Unlock()
	if r.finished || r.killed != nil {
		return
	}
	r.killed = err
	// Under the lock: End, which clears the interrupt, comes after
	// finished is set, so no interrupt outlives its run.
	r.vm.Interrupt()
	close(r.killCh)
	r.stopCallsLocked()
	r.hard = time.AfterFunc(r.grace, r.hardStop)
}

// Expired reports whether the run's deadline has passed, and kills the run
// if so. An engine's interrupt handler may poll it, so that a deadline is
// noticed even when the timer's goroutine runs late (a loaded machine).
func (r *Run) Expired() bool {
	if r.job.Deadline.IsZero() || time.Now().Before(r.job.Deadline) {
		return false
	}
	r.Kill(timeoutError(r.limit))
	return true
}

// Killed reports whether the run was killed (deadline, cancellation, a
// memory kill, Close): its VM may still be busy in a built-in, and what it
// allocates from now on is its own doing. Any goroutine.
func (r *Run) Killed() bool { return r.killedErr() != nil }

func (r *Run) killedErr() *errs.Error {
	r.killMu.Lock()
	defer r.killMu.Unlock()
	return r.killed
}

// hardStop runs a grace period after a kill: a VM still busy is stopped
// where the engine can, and abandoned when it runs on a worker.
func (r *Run) hardStop() {
	r.killMu.Lock()
	if r.finished {
		r.killMu.Unlock()
		return
	}
	if r.onWorker && !r.abandoned {
		r.abandoned = true
		r.stuckIn = r.inCall.Load()
		// A VM stuck in a built-in keeps a core busy: it counts against
		// Capabilities.MaxAbandoned until its goroutine lets go (run). One
		// waiting for a tool that ignores cancellation burns nothing.
		r.countedAbandoned = r.stuckIn == nil
		if r.countedAbandoned {
			r.env.eng.abandoned.Add(1)
		}
		close(r.abandonCh)
	}
	r.killMu.Unlock()
	r.vm.HardStop()
}

// abandonedResult is what Run returns for a run it gave up.
func (r *Run) abandonedResult() Result {
	r.killMu.Lock()
	err, name := *r.killed, r.stuckIn
	r.killMu.Unlock()
	if name != nil {
		err.Message += fmt.Sprintf(" (the program waited for tool %q, which did not stop when cancelled; its environment was discarded)", *name)
	} else {
		err.Message += " (the program was stuck in a built-in call; its environment was discarded)"
	}
	return Result{Err: &err, LeftRunning: int(r.running.Load()), Abandoned: true}
}

// startHeld starts the held call, if any, on a goroutine of its own,
// ahead of the queued ones (it was made first).
func (r *Run) startHeld() {
	if c := r.held; c != nil {
		r.held = nil
		if r.head > 0 {
			r.head--
			r.queue[r.head] = c
		} else {
			r.queue = append([]*call{c}, r.queue...) // a held call has at most the call that started it behind it
		}
	}
}

// dispatch starts queued calls while fewer than maxInFlight are running.
func (r *Run) dispatch() {
	for r.inflight < r.maxInFlight && r.head < len(r.queue) {
		c := r.queue[r.head]
		r.queue[r.head] = nil
		r.head++
		r.inflight++
		go func() { r.invoke(c); r.completions <- c }() // one slot per call in flight: never blocks
	}
	if r.head == len(r.queue) {
		r.queue, r.head = r.queue[:0], 0
	}
}

// callContext is the nested calls' context, made on first use: a run that
// makes no call costs no context (nor its registration with the run's).
func (r *Run) callContext() context.Context {
	r.killMu.Lock()
	defer r.killMu.Unlock()
	if r.callCtx == nil {
		r.callCtx, r.cancelCalls = context.WithCancel(r.ctx)
		if r.callsOver {
			r.cancelCalls()
		}
	}
	return r.callCtx
}

// stopCalls cancels the nested calls, those made from now on included.
func (r *Run) stopCalls() {
	r.killMu.Lock()
	defer r.killMu.Unlock()
	r.stopCallsLocked()
}

func (r *Run) stopCallsLocked() {
	r.callsOver = true
	if r.cancelCalls != nil {
		r.cancelCalls()
	}
}

// invoke makes one call and stores its outcome in c; it never panics.
func (r *Run) invoke(c *call) {
	defer func() {
		if p := recover(); p != nil {
			c.value, c.err = nil, errs.Errorf(errs.CodeInternal, "tool call %q panicked: %v", c.name, p)
		}
	}()
	r.running.Add(1)
	defer r.running.Add(-1)
	ctx := r.callContext()
	if c.line > 0 {
		ctx = WithCallLine(ctx, c.line)
	}
	c.value, c.err = r.job.Call(ctx, c.name, c.args)
}

// loop evaluates the script and settles nested calls until the program's
// promise settles, the run is killed, or nothing can settle it any more.
func (r *Run) loop() Result {
	if err := r.killedErr(); err != nil {
		return Result{Err: err}
	}
	name := r.job.Name
	if name == "" {
		name = "program.js"
	}
	if err := r.vm.Eval(r.job.Script, name); err != nil {
		return r.fail(err, true)
	}
	var batch []Settlement
	for {
		if err := r.vm.RunJobs(); err != nil {
			return r.fail(err, false)
		}
		if r.done {
			// A call the program made and did not await starts, to be
			// cancelled with the others.
			r.startHeld()
			r.dispatch()
			return r.settled()
		}
		if err := r.killedErr(); err != nil {
			return Result{Err: err}
		}
		batch = r.dueTimers(r.collect(batch[:0]))
		if len(batch) == 0 {
			switch {
			case r.held != nil && r.inflight == 0 && len(r.timers) == 0:
				// The program waits for this call alone: make it here. A
				// kill cancels the call's context, which ends it; a tool
				// that ignores that is abandoned at the hard stop.
				c := r.held
				r.held = nil
				r.inCall.Store(&c.name)
				r.invoke(c)
				r.inCall.Store(nil)
				if err := r.killedErr(); err != nil {
					return Result{Err: err}
				}
				batch = append(batch, settlement(c))
			case r.inflight == 0 && r.held == nil && len(r.timers) == 0:
				return Result{Err: errs.Errorf(errs.CodeRuntimeError, "the program's promise can never settle: it awaits something no tool call or timer will resolve")}
			default:
				// Wait for a call, the first timer or the end of the run
				// (a timer due after the deadline waits for the kill).
				if r.held != nil {
					r.startHeld() // timers are pending: do not block on the call
					r.dispatch()
				}
				var due <-chan time.Time
				if len(r.timers) > 0 {
					d := time.Until(r.timers[0].due)
					if r.clock == nil {
						r.clock = time.NewTimer(d)
					} else {
						r.clock.Reset(d)
					}
					due = r.clock.C
				}
				select {
				case c := <-r.completions:
					r.inflight--
					batch = append(batch, settlement(c))
					batch = r.collect(batch)
				case <-due:
				case <-r.killCh:
					return Result{Err: r.killedErr()}
				}
				if r.clock != nil {
					r.clock.Stop()
				}
				batch = r.dueTimers(batch)
				if len(batch) == 0 {
					continue
				}
			}
		}
		if err := r.vm.Settle(batch); err != nil {
			return r.fail(err, false)
		}
	}
}

// collect appends the calls completed so far, without waiting, and starts
// queued ones in their place.
func (r *Run) collect(batch []Settlement) []Settlement {
	for _, c := range r.ready {
		batch = append(batch, settlement(c))
	}
	clear(r.ready)
	r.ready = r.ready[:0]
	for {
		select {
		case c := <-r.completions:
			r.inflight--
			batch = append(batch, settlement(c))
			continue
		default:
		}
		break
	}
	r.dispatch()
	return batch
}

func settlement(c *call) Settlement {
	s := Settlement{ID: c.id, Name: c.name, Value: c.value}
	if c.err != nil {
		s.Err = errs.AsError(c.err)
	}
	return s
}

// finish cancels nested calls still in flight and waits up to the grace
// period for them to return, so their records are final when Run returns.
// It reports how many did not.
func (r *Run) finish() int {
	r.stopCalls()
	if r.inflight > 0 {
		t := time.NewTimer(r.grace)
	wait:
		for r.inflight > 0 {
			select {
			case <-r.completions:
				r.inflight--
			case <-t.C:
				break wait
			}
		}
		t.Stop()
	}
	return r.inflight
}

// settled turns the prelude's report of the settled promise into a Result.
func (r *Run) settled() Result {
	if r.doneErr != nil {
		return r.fail(r.doneErr, false)
	}
	o := r.outcome
	switch {
	case o == "u":
		return Result{}
	case strings.HasPrefix(o, "v"):
		return Result{Value: json.RawMessage(o[1:])}
	case strings.HasPrefix(o, "e"):
		t, err := ParseThrown(o[1:])
		if err != nil {
			return r.internal(err)
		}
		return r.fail(t, false)
	}
	return r.internal(fmt.Errorf("unknown outcome %q", o))
}

func (r *Run) internal(err error) Result {
	return Result{Err: &errs.Error{Code: errs.CodeInternal, Message: r.env.eng.caps.Name + " engine: " + err.Error(), Err: err}}
}

// fail classifies an error out of the VM. A killed run fails with the
// kill's reason, whatever the VM reports (an interrupt surfaces as an
// exception in some engines). compile is true for the script's evaluation
// itself: the script is an async function, so only compiling it throws.
func (r *Run) fail(err error, compile bool) Result {
	if k := r.killedErr(); k != nil {
		return Result{Err: k}
	}
	var t *Thrown
	var f *Fault
	switch {
	case errors.As(err, &t):
		return Result{Err: r.thrown(t, compile)}
	case errors.As(err, &f):
		return Result{Err: r.fault(f)}
	}
	return r.internal(err)
}

// run drives the VM through the job on the current goroutine: Begin, the
// loop, the end of nested calls, End. It never panics.
func (r *Run) run() (res Result) {
	usable := false
	left := 0
	defer func() {
		if p := recover(); p != nil {
			res = r.internal(fmt.Errorf("panic while running the program: %v", p))
			usable = false
			r.stopCalls()
		}
		r.killMu.Lock()
		r.finished = true
		abandoned, counted := r.abandoned, r.countedAbandoned
		if r.hard != nil {
			r.hard.Stop()
		}
		r.killMu.Unlock()
		// The driving goroutine ends the run even when Run gave it up: the
		// VM is still its own, and End releases what the run held.
		usable = r.vm.End(r.killedErr() != nil) && usable
		r.env.ended(r, usable && !abandoned)
		if counted {
			r.env.eng.abandoned.Add(-1)
		}
		res.LeftRunning = left
	}()
	if err := r.vm.Begin(r); err != nil {
		res = r.fail(err, false)
		return res
	}
	res = r.loop()
	r.timers = nil // a timer never outlives its run
	if r.clock != nil {
		r.clock.Stop()
	}
	left = r.finish()
	// An uncaught stack overflow discards the environment on every engine,
	// whichever limit fired: the engine's own (a VM fault) or the
	// language's RangeError. On wazero which of the two comes first
	// depends on how much of the wasm call stack is already grown, so
	// keeping the environment after the RangeError made the outcome
	// differ from one run of a program to the next.
	usable = res.Err == nil || res.Err.Code != errs.CodeStackOverflow
	return res
}
