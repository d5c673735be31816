package engine

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

// env is one environment: one VM, owned exclusively.
type env struct {
	eng *Base
	cfg VMConfig

	runMu sync.Mutex // serialises Run

	mu           sync.Mutex
	vm           VM   // nil once released
	busy         bool // a goroutine drives vm (a run, maybe abandoned)
	cur          *Run
	closed       bool
	unusable     bool     // broken, discarded, or a per-call env that ran its program
	globals      []string // last read by Globals
	globalsStale bool     // a program ran since
	namedTools   bool     // a program run here named `tools` (see Run)
	retained     int64    // VM.Retained after the last run

	released func() // EnvOptions.Released, nil once called
}

var _ Env = (*env)(nil)

func errResult(code errs.Code, format string, args ...any) Result {
	return Result{Err: errs.Errorf(code, format, args...)}
}

// Run implements Env.
func (en *env) Run(ctx context.Context, job *Job) Result {
	en.runMu.Lock()
	defer en.runMu.Unlock()
	en.mu.Lock()
	if en.closed || en.vm == nil || en.unusable {
		en.mu.Unlock()
		return errResult(errs.CodeInternal, "%s engine: the environment is not usable (closed, discarded after a failure, or per-call and already used)", en.eng.caps.Name)
	}
	if err := en.eng.overloaded(); err != nil {
		en.mu.Unlock()
		return Result{Err: err}
	}
	if !en.cfg.Persistent {
		en.unusable = true // one program per per-call environment
	}
	// A program that names `tools` most likely calls them, and so may any
	// later program of a persistent environment where one did (through
	// functions it defined): it runs on a worker, where its calls can be
	// made inline and Run can still abandon it. Any other program runs
	// here when the engine can hard-stop it, and makes its calls, if it
	// makes any after all, on goroutines of their own.
	en.namedTools = en.namedTools || strings.Contains(job.Script, "tools")
	onWorker := !en.eng.caps.HardStop || en.namedTools
	en.busy = true
	r := newRun(en, ctx, job, onWorker)
	en.cur = r
	en.mu.Unlock()

	stopCtx := afterFunc(ctx, func() { r.Kill(ctxError(ctx)) })
	defer stopCtx()
	if !job.Deadline.IsZero() {
		limit := time.Until(job.Deadline)
		r.limit = limit.Round(time.Millisecond).String()
		t := time.AfterFunc(limit, func() { r.Kill(timeoutError(r.limit)) })
		defer t.Stop()
		// The hard stop at the deadline plus the grace, whether or not the
		// deadline's own timer ran on time (Kill arms one too, for kills
		// without a deadline).
		h := time.AfterFunc(limit+r.grace, func() { r.Kill(timeoutError(r.limit)); r.hardStop() })
		defer h.Stop()
	}
	if !onWorker {
		return r.run()
	}
	r.resCh = make(chan Result, 1)
	en.eng.workers.goTask(r)
	select {
	case res := <-r.resCh:
		return res
	case <-r.abandonCh:
		en.mu.Lock()
		en.unusable = true
		en.mu.Unlock()
		return r.abandonedResult()
	}
}

// afterFunc is context.AfterFunc, called on ctx itself when ctx offers one
// (the runtime's program clock does): the context package would otherwise
// wrap f in a context of its own registered with ctx's, two registrations
// per run where one does.
func afterFunc(ctx context.Context, f func()) (stop func() bool) {
	if a, ok := ctx.(interface{ AfterFunc(func()) func() bool }); ok {
		return a.AfterFunc(f)
	}
	return context.AfterFunc(ctx, f)
}

// ended is the run's goroutine letting go of the VM: back to the
// environment, or to the engine when the environment was closed or the run
// abandoned meanwhile.
func (en *env) ended(r *Run, usable bool) {
	en.mu.Lock()
	en.busy = false
	en.cur = nil
	en.globalsStale = true
	if !usable {
		en.unusable = true
	}
	if en.vm != nil && en.cfg.Persistent {
		en.retained = en.vm.Retained() // we drove it last
	}
	var v VM
	if en.closed || !usable {
		v, en.vm = en.vm, nil
	}
	closed := en.closed
	rel := en.letGo(v)
	en.mu.Unlock()
	if v != nil {
		en.eng.release(v, closed && usable, !en.cfg.Persistent)
		rel()
	}
}

// letGo is called under en.mu when the environment lets go of v (nil if
// it keeps its VM): it returns the Released callback to call once v is
// released, or a no-op.
func (en *env) letGo(v VM) func() {
	if v == nil || en.released == nil {
		return func() {}
	}
	rel := en.released
	en.released = nil
	return rel
}

// Globals implements Env: the names programs added to the global object,
// sorted. Reading them costs the VM some microseconds, so it happens on
// demand between runs (holding the lock, so no run starts meanwhile);
// during a run it returns what it read last.
func (en *env) Globals() []string {
	en.mu.Lock()
	defer en.mu.Unlock()
	if en.globalsStale && en.cfg.Persistent && !en.busy && en.vm != nil && !en.unusable {
		if names, err := en.vm.Globals(); err == nil {
			slices.Sort(names)
			en.globals = names
		}
		en.globalsStale = false
	}
	return slices.Clone(en.globals)
}

// Usable implements Env.
func (en *env) Usable() bool {
	en.mu.Lock()
	defer en.mu.Unlock()
	return !en.closed && !en.unusable && en.vm != nil
}

// Close implements Env. It stops a run in progress (which then returns on
// its own, at the latest a grace period later) and does not wait for it:
// the run's goroutine hands the VM back when it lets go of it.
func (en *env) Close() error {
	en.mu.Lock()
	if en.closed {
		en.mu.Unlock()
		return nil
	}
	en.closed = true
	r := en.cur
	var v VM
	if !en.busy {
		v, en.vm = en.vm, nil
	}
	rel := en.letGo(v)
	en.mu.Unlock()
	if r != nil {
		r.Kill(&errs.Error{Code: errs.CodeCancelled, Message: "the environment was closed while the program ran"})
	}
	if v != nil {
		en.eng.release(v, true, !en.cfg.Persistent) // the VM says if it can serve again (Reusable)
		rel()
	}
	return nil
}

// Retained implements Env: what the VM reported after the last run.
func (en *env) Retained() int64 {
	en.mu.Lock()
	defer en.mu.Unlock()
	return en.retained
}

// VMOf returns the VM of an environment made by a Base, or nil (tests).
func VMOf(e Env) VM {
	en, ok := e.(*env)
	if !ok {
		return nil
	}
	en.mu.Lock()
	defer en.mu.Unlock()
	return en.vm
}
