package gojaengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/tools/errs"
)

// env is one goja realm. Its VM is driven by the goroutine of the run in
// progress (see the package doc); mu guards the fields the caller's
// goroutine, Close and the guard share with it.
type env struct {
	eng        *gojaEngine
	persistent bool
	usable     atomic.Bool

	runMu sync.Mutex // serialises Run

	mu      sync.Mutex
	st      *vmState // nil once discarded
	cur     *run
	closed  bool
	globals []string
}

func (e *env) Usable() bool { return e.usable.Load() }

func (e *env) Globals() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := append([]string(nil), e.globals...)
	sort.Strings(out)
	return out
}

// Close aborts a run in progress and drops the VM. It does not wait for the
// run: Run returns on its own, at the latest after the grace period.
func (e *env) Close() error {
	e.mu.Lock()
	e.closed = true
	e.usable.Store(false)
	r := e.cur
	e.st = nil
	e.mu.Unlock()
	if r != nil {
		r.kill(&errs.Error{Code: errs.CodeCancelled, Message: "the environment was closed while the program ran"})
	}
	return nil
}

// discard makes the environment unusable and drops its VM, so its memory is
// freed as soon as the run's goroutine lets go of it.
func (e *env) discard() {
	e.mu.Lock()
	e.usable.Store(false)
	e.st = nil
	e.mu.Unlock()
}

func errResult(code errs.Code, format string, args ...any) engine.Result {
	return engine.Result{Err: errs.Errorf(code, format, args...)}
}

func (e *env) Run(ctx context.Context, job *engine.Job) engine.Result {
	e.runMu.Lock()
	defer e.runMu.Unlock()

	e.mu.Lock()
	st := e.st
	if e.closed || st == nil || !e.usable.Load() {
		e.mu.Unlock()
		return errResult(errs.CodeInternal, "gojaengine: the environment is not usable (closed, crashed, or per-call and already used)")
	}
	e.mu.Unlock()
	if !e.persistent {
		e.usable.Store(false) // one program per per-call environment
	}
	if err := ctx.Err(); err != nil {
		return engine.Result{Err: ctxError(ctx)}
	}

	prg, terr := e.eng.compile(job)
	if terr != nil {
		return engine.Result{Err: terr}
	}

	r := newRun(e.eng, st, job, ctx)
	e.mu.Lock()
	e.cur = r
	closed := e.closed
	e.mu.Unlock()
	if closed {
		r.cancel()
		return errResult(errs.CodeCancelled, "the environment was closed")
	}

	start := time.Now()
	stopCtx := context.AfterFunc(ctx, func() { r.kill(ctxError(ctx)) })
	defer stopCtx()
	if !job.Deadline.IsZero() {
		limit := job.Deadline.Sub(start)
		t := time.AfterFunc(limit, func() {
			r.kill(&errs.Error{Code: errs.CodeTimeout, Message: fmt.Sprintf("the program exceeded its time limit (%s)", limit.Round(time.Millisecond))})
		})
		defer t.Stop()
	}

	e.eng.guard.add(r)
	resCh := make(chan engine.Result, 1)
	var vmRes engine.Result
	e.eng.workers.Go(func() {
		defer e.eng.guard.remove(r)
		defer close(r.finished)
		vmRes = e.execute(r, prg)
		if vmRes.Err != nil && vmRes.Err.Code == errs.CodeMemoryLimit {
			e.discard() // the memory may be held by globals
		}
	}, func() { resCh <- vmRes })

	var res engine.Result
	select {
	case res = <-resCh:
	case <-r.killCh:
		t := time.NewTimer(e.eng.opts.Grace)
		select {
		case res = <-resCh:
		case <-t.C:
			// The VM is stuck in a built-in that Interrupt cannot reach.
			// Honour the caller's clock; the VM is dropped when it returns.
			e.discard()
			err := *r.killedErr()
			if name := r.inCall.Load(); name != nil {
				err.Message += fmt.Sprintf(" (the program waited for tool %q, which did not stop when cancelled; its environment was discarded)", *name)
			} else {
				err.Message += " (the program was stuck in a built-in call; its environment was discarded)"
			}
			res = engine.Result{Err: &err}
		}
		t.Stop()
	}
	return res
}

// execute runs the program on the current goroutine, which owns the VM for
// the duration, and returns its outcome. It never panics.
func (e *env) execute(r *run, prg *goja.Program) (res engine.Result) {
	st := r.st
	defer func() {
		if p := recover(); p != nil {
			e.discard()
			res = errResult(errs.CodeInternal, "gojaengine: panic while running the program: %v", p)
		}
		r.finish(e.eng.opts.Grace)
		if r.abrupt {
			e.discard()
		}
		st.vm.ClearInterrupt() // a kill that raced with the end of the run
		st.cur = nil
		if e.persistent && e.usable.Load() {
			g := st.globals()
			e.mu.Lock()
			e.globals = g
			e.mu.Unlock()
		}
	}()
	// No ClearInterrupt here: a kill that came before this goroutine started
	// (Close, a short deadline) must stop the program. The previous run
	// cleared its own leftovers when it ended.
	st.cur = r
	clear(st.bindingErrs)
	if len(st.fns) > 1024 { // names a program invented; keep the cache bounded
		clear(st.fns)
	}
	return r.loop(prg)
}

// pendingCall is one nested tool call: queued, in flight, then completed
// with value or err, and settled on the VM goroutine.
type pendingCall struct {
	name            string
	args            json.RawMessage
	resolve, reject func(any) error
	value           json.RawMessage
	err             error
	line            int // the program's line that made the call; 0 unknown
}

// run is one program run: its event loop state (owned by the VM goroutine)
// and its kill switch (used by the deadline timer, ctx, Close and the memory
// guard, from any goroutine).
type run struct {
	job         *engine.Job
	st          *vmState
	maxInFlight int
	ctx         context.Context // for nested calls; cancelled when the run ends
	cancel      context.CancelFunc
	completions chan *pendingCall

	queue    []*pendingCall
	head     int
	inflight int // calls whose goroutine has not reported back
	pending  int // calls queued or in flight, not yet settled

	killMu   sync.Mutex
	killed   *errs.Error
	done     bool
	killCh   chan struct{}
	finished chan struct{}          // closed when the VM goroutine is done with the run
	abrupt   bool                   // an uncatchable error unwound the VM; it cannot run again
	inCall   atomic.Pointer[string] // the tool the VM goroutine is calling inline, if any
	bufBytes float64                // bytes of buffers the program allocated (see vmState.reserve)

	// Memory guard accounting.
	baseline    uint64 // heap objects when the run started
	startCycles uint64 // GC cycles completed when the run started
	limit       int64
	jsSince     atomic.Int64 // UnixNano when the VM entered JavaScript, 0 outside
	jsTotal     atomic.Int64 // nanoseconds spent in JavaScript so far
}

func newRun(eng *gojaEngine, st *vmState, job *engine.Job, ctx context.Context) *run {
	// Nested calls end with the run: kill or end cancels them.
	cctx, cancel := context.WithCancel(ctx)
	return &run{
		job:         job,
		st:          st,
		maxInFlight: eng.opts.MaxConcurrentCalls,
		ctx:         cctx,
		cancel:      cancel,
		completions: make(chan *pendingCall, eng.opts.MaxConcurrentCalls),
		killCh:      make(chan struct{}),
		finished:    make(chan struct{}),
		limit:       st.memLimit,
	}
}

// kill stops the run with err, once: it interrupts JavaScript, wakes the
// loop if it waits for calls, and cancels nested calls. A kill after the run
// ended is ignored (done is set under the same lock, so an Interrupt is
// always followed by the VM goroutine's ClearInterrupt).
func (r *run) kill(err *errs.Error) {
	r.killMu.Lock()
	defer r.killMu.Unlock()
	if r.done || r.killed != nil {
		return
	}
	r.killed = err
	r.st.vm.Interrupt(err)
	close(r.killCh)
	r.cancel()
}

func (r *run) killedErr() *errs.Error {
	r.killMu.Lock()
	defer r.killMu.Unlock()
	if r.killed == nil {
		return &errs.Error{Code: errs.CodeInternal, Message: "gojaengine: run interrupted without a reason"}
	}
	return r.killed
}

func (r *run) enterJS() { r.jsSince.Store(time.Now().UnixNano()) }
func (r *run) leaveJS() {
	if s := r.jsSince.Swap(0); s != 0 {
		r.jsTotal.Add(time.Now().UnixNano() - s)
	}
}

// jsTime is the JavaScript time of the run so far, including the current
// stretch: the memory guard's best proxy for "who allocated".
func (r *run) jsTime(now int64) int64 {
	t := r.jsTotal.Load()
	if s := r.jsSince.Load(); s != 0 {
		t += now - s
	}
	return t
}

// enqueue queues a call the program just made. The first call made while
// nothing else is queued or in flight is held back: if the program then
// waits for it and for nothing else, the loop makes it on the VM goroutine
// itself (see loop), which saves two goroutine hand-offs per awaited call.
// Any further call starts the held one too, so concurrent calls
// (Promise.all) still run concurrently.
func (r *run) enqueue(c *pendingCall) {
	r.pending++
	r.queue = append(r.queue, c)
	if r.inflight == 0 && len(r.queue)-r.head == 1 {
		return
	}
	r.dispatch()
}

// dispatch starts queued calls while fewer than maxInFlight are running.
func (r *run) dispatch() {
	for r.inflight < r.maxInFlight && r.head < len(r.queue) {
		c := r.queue[r.head]
		r.queue[r.head] = nil
		r.head++
		r.inflight++
		go func() { r.invoke(c); r.completions <- c }()
	}
	r.compact()
}

func (r *run) compact() {
	if r.head == len(r.queue) {
		r.queue, r.head = r.queue[:0], 0
	}
}

// invoke makes one call and stores its outcome in c. It runs on a call's
// own goroutine, or on the VM goroutine when the program waits for that
// call alone; either way it never panics. The completions channel has one
// slot per call in flight, so the goroutine's send never blocks, even after
// the loop stopped listening.
func (r *run) invoke(c *pendingCall) {
	defer func() {
		if p := recover(); p != nil {
			c.value, c.err = nil, errs.Errorf(errs.CodeInternal, "tool call %q panicked: %v", c.name, p)
		}
	}()
	if r.job.Call == nil {
		c.err = errs.Errorf(errs.CodeInternal, "gojaengine: no Call function for tool %q", c.name)
		return
	}
	ctx := r.ctx
	if c.line > 0 {
		ctx = engine.WithCallLine(ctx, c.line)
	}
	c.value, c.err = r.job.Call(ctx, c.name, c.args)
}

// loop evaluates the script and then settles tool calls until the main
// promise settles, the run is killed, or nothing can settle it any more.
func (r *run) loop(prg *goja.Program) engine.Result {
	st := r.st
	r.enterJS()
	v, err := st.vm.RunProgram(prg)
	r.leaveJS()
	if err != nil {
		return engine.Result{Err: r.fail(err)}
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok { // the script's completion value was not a promise; take it as is
		return r.result(v)
	}
	for {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			r.dispatch() // a call the program made and did not await starts, to be cancelled by finish
			return r.result(p.Result())
		case goja.PromiseStateRejected:
			r.dispatch()
			return engine.Result{Err: r.thrown(p.Result())}
		}
		if r.pending == 0 {
			return errResult(errs.CodeRuntimeError, "the program's promise can never settle: it awaits something no tool call will resolve (timers are not available)")
		}
		if r.inflight == 0 && len(r.queue)-r.head == 1 {
			// The program waits for this call alone: make it here. A kill
			// cancels r.ctx, which ends the call; settling then meets the
			// interrupt.
			c := r.queue[r.head]
			r.queue[r.head] = nil
			r.head++
			r.compact()
			r.inCall.Store(&c.name)
			r.invoke(c)
			r.inCall.Store(nil)
			r.pending--
			select {
			case <-r.killCh: // the call ended because the run was killed
				return engine.Result{Err: r.killedErr()}
			default:
			}
			r.enterJS()
			err := r.settle(c)
			r.leaveJS()
			if err != nil {
				return engine.Result{Err: r.fail(err)}
			}
			continue
		}
		select {
		case c := <-r.completions:
			r.inflight--
			r.pending--
			r.dispatch()
			r.enterJS()
			err := r.settle(c)
			r.leaveJS()
			if err != nil {
				return engine.Result{Err: r.fail(err)}
			}
		case <-r.killCh:
			return engine.Result{Err: r.killedErr()}
		}
	}
}

// settle resolves or rejects a call's promise; goja then runs the promise
// jobs, so this is where the program continues after an await.
func (r *run) settle(c *pendingCall) error {
	st := r.st
	if c.err != nil {
		return c.reject(st.newBindingError(errs.AsError(c.err)))
	}
	if len(c.value) == 0 {
		return c.resolve(goja.Undefined())
	}
	v, err := decodeJSON(st.vm, string(c.value))
	if err != nil {
		return c.reject(st.newBindingError(&errs.Error{Code: errs.CodeToolError, Message: fmt.Sprintf("tool %q returned invalid JSON: %v", c.name, err)}))
	}
	return c.resolve(v)
}

// finish cancels nested calls still in flight and waits up to grace for
// them to report back, so their records are final when Run returns.
func (r *run) finish(grace time.Duration) {
	r.cancel()
	if r.inflight > 0 {
		t := time.NewTimer(grace)
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
	r.killMu.Lock()
	r.done = true
	r.killMu.Unlock()
}

// result converts the program's return value to JSON.
func (r *run) result(v goja.Value) engine.Result {
	raw, err := r.export(v)
	if err != nil {
		return engine.Result{Err: err}
	}
	return engine.Result{Value: raw}
}

func (r *run) export(v goja.Value) (json.RawMessage, *errs.Error) {
	if v == nil || goja.IsUndefined(v) {
		return nil, nil
	}
	if _, ok := goja.AssertFunction(v); ok {
		return nil, errs.Errorf(errs.CodeRuntimeError, "the program returned a function, which JSON cannot represent; return data instead")
	}
	if _, ok := v.(*goja.Symbol); ok {
		return nil, errs.Errorf(errs.CodeRuntimeError, "the program returned a symbol, which JSON cannot represent")
	}
	r.enterJS()
	out, err := r.st.stringify(goja.Undefined(), v)
	r.leaveJS()
	if err != nil {
		var ie *goja.InterruptedError
		var so *goja.StackOverflowError
		if errors.As(err, &ie) || errors.As(err, &so) {
			return nil, r.fail(err)
		}
		return nil, jsonError(jsErrorText(err))
	}
	if out == nil || goja.IsUndefined(out) {
		return nil, nil
	}
	return json.RawMessage(out.String()), nil
}
