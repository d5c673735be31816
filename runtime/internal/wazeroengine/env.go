package wazeroengine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sourcemap/sourcemap"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/quickjs"
	"github.com/codemode/codemode/tools/errs"
)

// env is one environment: one context of one instance, owned exclusively.
type env struct {
	e     *Engine
	opts  engine.EnvOptions
	limit int64

	mu           sync.Mutex
	v            *vm // nil once closed
	closed       bool
	running      bool
	runDone      chan struct{} // closed when the current Run returns
	hardStop     func()        // schedules the hard stop of the current Run
	abort        chan struct{} // closed by Close
	unusable     bool          // a persistent context that cannot be proven clean
	globals      []string      // last read by Globals
	globalsStale bool          // a program ran since
	namedTools   bool          // a program run here named `tools` (see Run)
}

var _ engine.Env = (*env)(nil)

func errResult(code errs.Code, format string, args ...any) engine.Result {
	return engine.Result{Err: errs.Errorf(code, format, args...)}
}

// Run implements engine.Env.
func (en *env) Run(ctx context.Context, job *engine.Job) (res engine.Result) {
	en.mu.Lock()
	switch {
	case en.closed || en.v == nil:
		en.mu.Unlock()
		return errResult(errs.CodeInternal, "wazero engine: the environment is closed")
	case en.running:
		en.mu.Unlock()
		return errResult(errs.CodeInternal, "wazero engine: Run called concurrently on one environment")
	case !en.opts.Persistent && en.unusable:
		en.mu.Unlock()
		return errResult(errs.CodeInternal, "wazero engine: a per-call environment runs one program; start a new one")
	case en.unusable || en.v.inst.Broken() != nil:
		en.mu.Unlock()
		return errResult(errs.CodeInternal, "wazero engine: the environment was discarded after an earlier failure; start a new one")
	}
	v := en.v
	en.running = true
	done := make(chan struct{})
	en.runDone = done
	en.mu.Unlock()

	r := newRun(en, v, ctx, job)
	finish := sync.OnceFunc(func() {
		en.mu.Lock()
		en.running = false
		en.hardStop = nil
		close(done)
		en.mu.Unlock()
	})
	// A program that names `tools` will most likely call them, and so may
	// any later program of a persistent environment where one did (through
	// functions it defined). Its calls are made inline when it awaits them
	// one at a time (see program), and its VM runs on a worker, so that Run
	// can still return when the VM is stuck in a call that ignores
	// cancellation (see run.abandon). Handing the run to a worker costs
	// about 20 µs here (waking a thread); an inline call saves about 40.
	// Any other program runs right here and makes calls, if it makes any
	// after all, on goroutines of their own: slower, but never stuck.
	en.mu.Lock()
	en.namedTools = en.namedTools || strings.Contains(job.Script, "tools")
	namedTools := en.namedTools
	en.mu.Unlock()
	if !namedTools {
		r.noInline = true
		res = en.runVM(r)
		finish()
		return res
	}
	resCh := make(chan engine.Result, 1)
	var vmRes engine.Result
	en.e.workers.Go(func() {
		vmRes = en.runVM(r)
		finish()
	}, func() { resCh <- vmRes })
	select {
	case res = <-resCh:
		return res
	case <-r.stuck:
		en.mu.Lock()
		en.unusable = true
		en.mu.Unlock()
		res = r.stopped(fmt.Sprintf("the program waited for tool %q, which did not stop when cancelled; the environment was discarded", r.stuckIn))
		finish()
		return res
	}
}

// runVM runs r on the current goroutine, which drives the instance.
func (en *env) runVM(r *run) (res engine.Result) {
	v := r.v
	defer func() {
		// Panics stop here: the instance may be inconsistent, so it is
		// discarded and the caller gets an error.
		if p := recover(); p != nil {
			v.dirty = true
			v.inst.Close()
			res = errResult(errs.CodeInternal, "wazero engine: internal error: %v; the environment was discarded", p)
		}
	}()
	res = r.execute()
	if r.abandoned.Load() {
		return res // Run has returned without us; the instance is not ours
	}
	if !en.opts.Persistent {
		// A per-call environment runs one program: its globals are that
		// program's, never the next one's.
		en.mu.Lock()
		en.unusable = true
		en.mu.Unlock()
	}
	en.mu.Lock()
	en.globalsStale = true
	en.mu.Unlock()
	return res
}

// Globals implements engine.Env: the names programs added to globalThis
// (compared with the pristine context), sorted. Reading them costs tens of
// microseconds, so it happens on demand: between runs it asks the VM
// (holding the environment's lock, so no Run starts meanwhile); during a
// run it returns what it read last.
func (en *env) Globals() []string {
	en.mu.Lock()
	defer en.mu.Unlock()
	if en.globalsStale && !en.running && !en.closed && en.v != nil && en.v.inst.Broken() == nil {
		if names, ok := en.v.readGlobals(); ok {
			en.globals = names
		}
		en.globalsStale = false
	}
	return append([]string(nil), en.globals...)
}

// Usable implements engine.Env.
func (en *env) Usable() bool {
	en.mu.Lock()
	defer en.mu.Unlock()
	if en.closed || en.v == nil || en.unusable {
		return false
	}
	if en.running {
		return true // the instance is only read by its own goroutine
	}
	return en.v.inst.Broken() == nil
}

// Close implements engine.Env. During a Run it aborts the run (interrupt
// first, the hard stop after Options.HardStopGrace) and waits for it.
func (en *env) Close() error {
	en.mu.Lock()
	if en.closed {
		en.mu.Unlock()
		return nil
	}
	en.closed = true
	close(en.abort)
	if en.running {
		done, hs := en.runDone, en.hardStop
		en.mu.Unlock()
		if hs != nil {
			hs()
		}
		<-done
		en.mu.Lock()
	}
	v := en.v
	en.v = nil
	en.mu.Unlock()
	en.e.release(v)
	return nil
}

// readGlobals asks the prelude for the names programs declared.
func (v *vm) readGlobals() ([]string, bool) {
	s, t, err := v.callString(fnGlobals, "")
	if err != nil || t != nil {
		return nil, false
	}
	var names []string
	if json.Unmarshal([]byte(s), &names) != nil {
		return nil, false
	}
	return names, true
}

// run is one program in progress. Its fields are used by the goroutine
// driving the instance, except the call results (mu).
type run struct {
	en       *env
	v        *vm
	i        *quickjs.Instance
	ctx      context.Context
	job      *engine.Job
	deadline time.Time

	// stop is why the interrupt handler stopped the program: "timeout",
	// "cancel" or "abort"; "" while it may run.
	stop string

	callCtx     context.Context
	cancelCalls context.CancelFunc
	calls       sync.WaitGroup
	nextID      int
	inflight    int
	mu          sync.Mutex
	results     []callResult
	notify      chan struct{}

	done    bool
	outcome string // the prelude's "D" payload

	// held is a call made while no other was pending, not started yet:
	// if the program then waits for it alone, the loop makes it on this
	// goroutine instead of a goroutine of its own (see program).
	held     *heldCall
	noInline bool // the VM runs on Run's goroutine: never call inline
	// inCall names the tool the loop is calling inline, if any. A hard
	// stop that finds it set abandons the run: stuck is closed and Run
	// returns; when the call comes back, abandoned tells the loop that the
	// instance is no longer its own.
	inCall    atomic.Pointer[string]
	abandoned atomic.Bool
	stuck     chan struct{}
	stuckIn   string // set before stuck is closed
}

type heldCall struct {
	id   int
	name string
	args json.RawMessage
}

type callResult struct {
	id    int
	value json.RawMessage
	err   error
}

func newRun(en *env, v *vm, ctx context.Context, job *engine.Job) *run {
	deadline := job.Deadline
	if d, ok := ctx.Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	return &run{en: en, v: v, i: v.inst, ctx: ctx, job: job, deadline: deadline, notify: make(chan struct{}, 1), stuck: make(chan struct{})}
}

// shouldInterrupt is polled by QuickJS while JavaScript runs.
func (r *run) shouldInterrupt() bool {
	if r.stop != "" {
		return true
	}
	select {
	case <-r.en.abort:
		r.stop = "abort"
	default:
		if err := r.ctx.Err(); err != nil {
			r.stop = "cancel"
			if errors.Is(err, context.DeadlineExceeded) {
				r.stop = "timeout"
			}
		} else if !r.deadline.IsZero() && !time.Now().Before(r.deadline) {
			r.stop = "timeout"
		}
	}
	return r.stop != ""
}

// host handles the prelude's host calls (see prelude.js).
func (r *run) host(op byte, payload string) quickjs.Value {
	switch op {
	case 'L':
		var m [2]string
		if json.Unmarshal([]byte(payload), &m) == nil && r.job.Log != nil {
			r.job.Log(m[0], r.logText(m[1]))
		}
	case 'C':
		nl := strings.IndexByte(payload, '\n')
		var name string
		if nl < 0 || json.Unmarshal([]byte(payload[:nl]), &name) != nil {
			return 0
		}
		args := json.RawMessage(payload[nl+1:])
		r.nextID++
		id := r.nextID
		r.inflight++
		switch {
		case r.job.Call == nil:
			r.deliver(callResult{id: id, err: errs.Errorf(errs.CodeUnknownTool, "no tools are bound in this run (tools[%q])", name)})
		case r.inflight == 1 && !r.noInline: // the only pending call: hold it (see program)
			r.held = &heldCall{id: id, name: name, args: args}
		default:
			r.startHeld()
			r.start(&heldCall{id: id, name: name, args: args})
		}
		val, err := r.i.NewFloat64(r.v.ctx, float64(id))
		if err != nil {
			return 0
		}
		return val
	case 'D':
		r.done = true
		r.outcome = payload
	}
	return 0
}

// start makes a call on a goroutine of its own.
func (r *run) start(c *heldCall) {
	r.calls.Add(1)
	go func() {
		defer r.calls.Done()
		val, err := r.safeCall(c.name, c.args)
		r.deliver(callResult{id: c.id, value: val, err: err})
	}()
}

// startHeld starts the held call, if any, on a goroutine of its own.
func (r *run) startHeld() {
	if c := r.held; c != nil {
		r.held = nil
		r.start(c)
	}
}

// callInline makes the held call on the loop's goroutine and queues its
// result. It reports false when the run was abandoned meanwhile.
func (r *run) callInline() bool {
	c := r.held
	r.held = nil
	r.inCall.Store(&c.name)
	val, err := r.safeCall(c.name, c.args)
	r.inCall.Store(nil)
	if r.abandoned.Load() {
		return false
	}
	r.mu.Lock()
	r.results = append(r.results, callResult{id: c.id, value: val, err: err})
	r.mu.Unlock()
	return true
}

// abandon gives the run up while its loop is stuck in an inline call: Run
// returns, and the loop, when the call comes back, leaves the instance
// alone. Called by the hard stop, with the loop's goroutine elsewhere.
func (r *run) abandon(name string) {
	if r.abandoned.CompareAndSwap(false, true) {
		r.stuckIn = name
		close(r.stuck)
	}
}

// safeCall runs Job.Call, turning a panic into a TOOL_ERROR: a failure in
// one tool must not take down the process.
func (r *run) safeCall(name string, args json.RawMessage) (val json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errs.Errorf(errs.CodeToolError, "tool %q panicked: %v", name, p)
		}
	}()
	return r.job.Call(r.callCtx, name, args)
}

func (r *run) deliver(c callResult) {
	r.mu.Lock()
	r.results = append(r.results, c)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// execute runs the job to completion on the calling goroutine.
func (r *run) execute() engine.Result {
	v, i := r.v, r.i
	v.run = r
	v.programs++
	i.ResetRefused()
	defer func() { v.run = nil }()

	// The hard stop: if the interrupt handler has not stopped the program
	// a grace period after the deadline (a long built-in never polls it),
	// the instance is stopped under it and discarded. finished keeps a
	// late timer from stopping an instance that has moved on.
	var finished sync.Mutex
	ended := false
	hardStop := func() {
		finished.Lock()
		defer finished.Unlock()
		if !ended {
			i.Stop()
			if name := r.inCall.Load(); name != nil {
				r.abandon(*name)
			}
		}
	}
	defer func() {
		finished.Lock()
		ended = true
		finished.Unlock()
	}()
	grace := r.en.e.opts.HardStopGrace
	later := func() { time.AfterFunc(grace, hardStop) }
	// Calls end at the deadline by themselves, and at Close: the loop may
	// be inside one (an inline call) when either comes.
	if r.deadline.IsZero() {
		r.callCtx, r.cancelCalls = context.WithCancel(r.ctx)
	} else {
		r.callCtx, r.cancelCalls = context.WithDeadline(r.ctx, r.deadline)
	}
	r.en.mu.Lock()
	r.en.hardStop = func() { r.cancelCalls(); later() }
	r.en.mu.Unlock()
	if !r.deadline.IsZero() {
		t := time.AfterFunc(time.Until(r.deadline)+grace, hardStop)
		defer t.Stop()
	}
	stopWatch := context.AfterFunc(r.ctx, later)
	defer stopWatch()

	defer func() {
		r.cancelCalls()
		if r.inflight > 0 {
			waitFor(&r.calls, grace)
		}
	}()

	res := r.program()
	if r.abandoned.Load() {
		return res
	}
	if r.stop != "" || i.Refused() {
		v.dirty = true
	}
	if i.Broken() == nil {
		if pending, err := i.IsJobPending(); err != nil || pending {
			v.dirty = true
			if r.en.opts.Persistent && r.stop != "" {
				r.drain()
			}
		}
	}
	return res
}

// program evaluates the script and runs the event loop until the
// program's promise settles.
func (r *run) program() engine.Result {
	v, i := r.v, r.i
	toolNames := r.job.Tools
	if toolNames == nil {
		toolNames = []string{}
	}
	config, _ := json.Marshal(map[string]any{"tools": toolNames, "limit": r.en.limit})
	if _, t, err := v.callString(fnBegin, string(config)); err != nil {
		return r.failCall(err)
	} else if t != nil {
		return r.failThrown(t, false)
	}

	name := r.job.Name
	if name == "" {
		name = "program.js"
	}
	p, err := i.Eval(v.ctx, r.job.Script, name, quickjs.EvalGlobal)
	if err != nil {
		return r.failCall(err)
	}
	exc, err := i.Exception(v.ctx, p)
	if err != nil {
		return r.failCall(err)
	}
	if exc != 0 {
		i.FreeValue(v.ctx, p)
		t, err := v.describe(exc)
		i.FreeValue(v.ctx, exc)
		if err != nil {
			return r.failCall(err)
		}
		return r.failThrown(t, true)
	}
	_, t, err := v.callValue(fnWatch, p)
	i.FreeValue(v.ctx, p)
	if err != nil {
		return r.failCall(err)
	}
	if t != nil {
		return r.failThrown(t, false)
	}

	var deadlineC <-chan time.Time
	for {
		_, exc, err := i.ExecutePendingJobs(v.ctx, -1)
		if err != nil {
			return r.failCall(err)
		}
		if exc != 0 {
			t, err := v.describe(exc)
			i.FreeValue(v.ctx, exc)
			if err != nil {
				return r.failCall(err)
			}
			return r.failThrown(t, false)
		}
		if r.stop != "" {
			return r.stopped("")
		}
		if r.done {
			r.startHeld() // a call the program did not await starts, to be cancelled with the run
			return r.settled()
		}
		if pending, err := i.IsJobPending(); err != nil {
			return r.failCall(err)
		} else if pending {
			continue
		}
		r.mu.Lock()
		ready := len(r.results)
		r.mu.Unlock()
		if r.inflight == 0 && ready == 0 {
			return errResult(errs.CodeRuntimeError,
				"the program's promise can never settle: it is waiting, but no tool call is in flight and nothing else can resume it")
		}
		if ready == 0 && r.held != nil && r.inflight == 1 {
			// The program waits for this call alone: make it here, saving
			// a goroutine and two hand-offs. A call that ignores its
			// cancellation is abandoned by the hard stop.
			if r.shouldInterrupt() {
				return r.stopped("")
			}
			if !r.callInline() {
				return engine.Result{}
			}
			if r.shouldInterrupt() {
				return r.stopped("")
			}
		} else if ready == 0 {
			if deadlineC == nil && !r.deadline.IsZero() {
				t := time.NewTimer(time.Until(r.deadline))
				defer t.Stop()
				deadlineC = t.C
			}
			select {
			case <-r.notify:
			case <-deadlineC:
				r.stop = "timeout"
			case <-r.ctx.Done():
				r.stop = "cancel"
				if errors.Is(r.ctx.Err(), context.DeadlineExceeded) {
					r.stop = "timeout"
				}
			case <-r.en.abort:
				r.stop = "abort"
			}
			if r.stop != "" {
				return r.stopped("")
			}
		}
		if err := r.settle(); err != nil {
			return r.failCall(err)
		}
	}
}

// settle delivers the finished tool calls to the VM in one batch.
func (r *run) settle() error {
	r.mu.Lock()
	batch := r.results
	r.results = nil
	r.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	r.inflight -= len(batch)
	var b bytes.Buffer
	b.WriteByte('[')
	for k, c := range batch {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(c.id))
		val := bytes.TrimSpace(c.value)
		err := c.err
		if err == nil && len(val) > 0 && !json.Valid(val) {
			err = errs.Errorf(errs.CodeToolError, "the tool returned a result that is not valid JSON")
		}
		switch {
		case err != nil:
			te := errs.AsError(err)
			e := map[string]any{"code": string(te.Code), "message": te.Error()}
			if len(te.Info) > 0 {
				e["info"] = te.Info
			}
			m, merr := json.Marshal(e)
			if merr != nil { // Info that JSON cannot hold: drop it
				delete(e, "info")
				m, _ = json.Marshal(e)
			}
			b.WriteString(",0,")
			b.Write(m)
		case len(val) == 0: // no value: the binding resolves to undefined
			b.WriteString(",2")
		default:
			b.WriteString(",1,")
			b.Write(val)
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	_, t, err := r.v.callString(fnSettle, b.String())
	if err != nil {
		return err
	}
	if t != nil {
		// Only an exhausted heap or an interrupt makes our own code throw.
		if r.stop == "" && !r.i.Refused() {
			return fmt.Errorf("wazero engine: delivering tool results: %s", t.Message)
		}
	}
	return nil
}

// drain runs jobs left behind by a stopped program of a persistent
// environment with the interrupt still raised, so each is cut short; if
// the queue does not empty, the context cannot be proven clean.
func (r *run) drain() {
	for k := 0; k < 100; k++ {
		_, exc, err := r.i.ExecutePendingJobs(r.v.ctx, -1)
		if err != nil {
			break
		}
		r.i.FreeValue(r.v.ctx, exc)
		if pending, err := r.i.IsJobPending(); err == nil && !pending {
			return
		}
	}
	r.en.mu.Lock()
	r.en.unusable = true
	r.en.mu.Unlock()
}

// settled turns the prelude's report of the settled promise into a Result.
func (r *run) settled() engine.Result {
	o := r.outcome
	switch {
	case o == "u":
		return engine.Result{}
	case strings.HasPrefix(o, "v"):
		return engine.Result{Value: json.RawMessage(o[1:])}
	case strings.HasPrefix(o, "e"):
		var t thrown
		if err := json.Unmarshal([]byte(o[1:]), &t); err != nil {
			return errResult(errs.CodeInternal, "wazero engine: unreadable outcome: %v", err)
		}
		return r.failThrown(&t, false)
	}
	return errResult(errs.CodeInternal, "wazero engine: unknown outcome %q", o)
}

// stopped is the result of a run the interrupt handler (or the hard stop)
// ended.
func (r *run) stopped(detail string) engine.Result {
	var res engine.Result
	switch r.stop {
	case "cancel":
		res = errResult(errs.CodeCancelled, "the run was cancelled")
	case "abort":
		res = errResult(errs.CodeCancelled, "the environment was closed during the run")
	default:
		res = errResult(errs.CodeTimeout, "the program did not finish before its deadline")
	}
	if detail != "" {
		res.Err.Message += " (" + detail + ")"
	}
	return res
}

// failCall classifies a failed call into the instance. The instance is
// broken: it will be closed, never reused.
func (r *run) failCall(err error) engine.Result {
	var ce *quickjs.CallError
	errors.As(err, &ce)
	switch {
	case ce != nil && ce.Kind == "stopped":
		if r.stop == "" {
			r.shouldInterrupt()
		}
		if r.stop == "" {
			r.stop = "abort"
		}
		return r.stopped("the engine was stopped forcibly; the environment was discarded")
	case r.i.Refused() || errors.Is(err, quickjs.ErrOutOfMemory):
		return r.memoryLimit("the environment was discarded")
	case ce != nil && ce.Kind == "stack":
		return errResult(errs.CodeStackOverflow, "the program recursed too deep (the engine's call stack overflowed); the environment was discarded")
	}
	res := errResult(errs.CodeInternal, "the JavaScript engine crashed: %v; the environment was discarded", err)
	if s := strings.TrimSpace(r.i.Stderr()); s != "" {
		res.Err.Info = map[string]any{"stderr": s}
	}
	return res
}

func (r *run) memoryLimit(detail string) engine.Result {
	res := errResult(errs.CodeMemoryLimit, "the program exceeded its memory limit of %s", formatBytes(r.en.limit))
	if detail != "" {
		res.Err.Message += "; " + detail
	}
	return res
}

func formatBytes(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

var reStackPos = regexp.MustCompile(`:(\d+)(?::(\d+))?`)

// failThrown classifies an exception that reached the top of the program.
// compile is true for an exception from evaluating the script itself:
// the script is an async function, so only compiling it can throw there.
func (r *run) failThrown(t *thrown, compile bool) engine.Result {
	if r.stop != "" {
		return r.stopped("")
	}
	if r.i.Refused() {
		res := r.memoryLimit("")
		res.Err.Info = map[string]any{"error": t.Name + ": " + t.Message}
		return res
	}
	if t.Code != "" {
		// A tool's rejection that reached the top keeps the call's code,
		// message and info.
		e := &errs.Error{Code: errs.Code(t.Code), Message: t.Message}
		if m, ok := t.Info.(map[string]any); ok {
			e.Info = m
		}
		return engine.Result{Err: e}
	}
	if t.Plain {
		return errResult(errs.CodeRuntimeError, "%s", t.Message)
	}
	stack, line, col := r.mapStack(t.Stack)
	var msg string
	switch {
	case t.Error && t.Name != "":
		msg = t.Name + ": " + t.Message
	case t.Error:
		msg = t.Message
	default:
		msg = "Uncaught " + t.Message
	}
	info := map[string]any{}
	if stack != "" {
		info["stack"] = stack
	}
	if line > 0 {
		info["line"], info["column"] = line, col
	}
	code := errs.CodeRuntimeError
	switch {
	case compile && t.Name == "SyntaxError":
		code = errs.CodeSyntaxError
		if line > 0 {
			msg = fmt.Sprintf("%s (line %d, column %d)", msg, line, col)
		}
	case (t.Name == "RangeError" || t.Name == "InternalError") &&
		(strings.Contains(t.Message, "call stack size exceeded") || strings.Contains(t.Message, "stack overflow")):
		code = errs.CodeStackOverflow
	}
	if len(info) == 0 {
		info = nil
	}
	return engine.Result{Err: &errs.Error{Code: code, Message: msg, Info: info}}
}

const sourceMapPrefix = "\n//# sourceMappingURL=data:application/json;base64,"

// inlineSourceMap returns the source map at the end of a prepared
// TypeScript script (package source appends it; QuickJS does not apply
// source maps itself), or nil.
func inlineSourceMap(script string) *sourcemap.Consumer {
	k := strings.LastIndex(script, sourceMapPrefix)
	if k < 0 {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(script[k+len(sourceMapPrefix):]))
	if err != nil {
		return nil
	}
	sm, err := sourcemap.Parse("", raw)
	if err != nil {
		return nil
	}
	return sm
}

// mapStack rewrites positions in the script to positions in the user's
// source (Job.LineOffset) and returns the first one.
func (r *run) mapStack(stack string) (string, int, int) {
	first, firstCol := 0, 0
	out := r.mapPositions(stack, func(line, col int) {
		if first == 0 {
			first, firstCol = line, col
		}
	})
	return strings.TrimRight(out, "\n"), first, firstCol
}

// logText is console output with the stacks it shows (a logged Error)
// mapped to the user's lines, like an uncaught error's.
func (r *run) logText(text string) string {
	if !strings.Contains(text, r.scriptName()+":") {
		return text
	}
	return r.mapPositions(text, nil)
}

func (r *run) scriptName() string {
	if r.job.Name == "" {
		return "program.js"
	}
	return r.job.Name
}

// mapPositions rewrites each position in the script found in text to the
// user's line (through the TypeScript source map, if any), calling seen
// (if not nil) with each, innermost first.
func (r *run) mapPositions(text string, seen func(line, col int)) string {
	name := r.scriptName()
	sm := inlineSourceMap(r.job.Script)
	var out strings.Builder
	rest := text
	for {
		k := strings.Index(rest, name+":")
		if k < 0 {
			out.WriteString(rest)
			break
		}
		out.WriteString(rest[:k+len(name)])
		rest = rest[k+len(name):]
		m := reStackPos.FindStringSubmatchIndex(rest)
		if m == nil || m[0] != 0 {
			continue
		}
		line, _ := strconv.Atoi(rest[m[2]:m[3]])
		col := 0
		if m[4] >= 0 {
			col, _ = strconv.Atoi(rest[m[4]:m[5]])
		}
		if sm != nil {
			if _, _, l, c, ok := sm.Source(line, col); ok {
				line, col = l, c
			}
		}
		line = max(line-r.job.LineOffset, 1)
		if seen != nil && (r.job.SourceLines <= 0 || line <= r.job.SourceLines) {
			seen(line, col)
		}
		fmt.Fprintf(&out, ":%d", line)
		if m[4] >= 0 {
			fmt.Fprintf(&out, ":%d", col)
		}
		rest = rest[m[1]:]
	}
	return engine.DropInternalFrames(engine.DropWrapperFrames(out.String(), r.job.SourceLines, name), "<codemode>")
}

// waitFor waits for wg, at most d: a nested call whose tool ignores
// cancellation (bodies of nested calls run inline) must not hold the run.
// Its goroutine delivers to a run that has moved on, which is harmless.
func waitFor(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
