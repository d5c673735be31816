package codemode

import (
	"context"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
)

// RunObserver watches the programs code_run runs: what traces, metrics and
// the run viewer need to know of a run beyond its tool call (which a
// tools.Middleware sees). It is called when a program is about to run, on
// the code_run call's goroutine and with the call's context (so the span a
// tracing middleware started is in it). The *RunWatch it returns, nil for
// "not interested", receives the program's console lines as they are
// printed and, once, its outcome.
type RunObserver func(ctx context.Context, run RunStart) *RunWatch

// RunStart describes a program about to run.
type RunStart struct {
	// Call is the code_run execution; its Token is the Parent of the
	// program's nested calls.
	Call *tools.Execution
	// Code is the program's text, as sent.
	Code string
	// Engine is the runtime's engine name; Mode the environment mode.
	Engine string
	Mode   runtime.Mode
}

// RunWatch receives what happens to one run. Either field may be nil.
type RunWatch struct {
	// Log receives each console line as it is printed (after the log
	// budget's truncation), on an engine goroutine. It must not block.
	Log func(runtime.Log)
	// Done receives the outcome, on the code_run call's goroutine, after
	// the program ended and before code_run returns.
	Done func(RunEnd)
}

// RunEnd is how a run ended.
type RunEnd struct {
	Outcome runtime.Outcome
	// Fresh reports whether the program ran in a fresh environment:
	// always in per-call mode; in persistent mode when the agent's
	// environment was created (or re-created) for it.
	Fresh bool
}

// observe starts the observers' watches of one run; nil when nobody
// watches, which is the whole cost of the hook when none is configured.
func (p *Plugin) observe(ctx context.Context, e *tools.Execution, code string) []*RunWatch {
	if len(p.opts.Observers) == 0 {
		return nil
	}
	start := RunStart{Call: e, Code: code, Engine: p.rt.Engine(), Mode: p.opts.Mode}
	var ws []*RunWatch
	for _, o := range p.opts.Observers {
		if w := o(ctx, start); w != nil {
			ws = append(ws, w)
		}
	}
	return ws
}

// logTo returns the OnLog of a request: the progress stream's line
// function (fn, may be nil) and the watches' Log, or nil for none.
func logTo(fn func(level, text string), ws []*RunWatch) func(runtime.Log) {
	var logs []func(runtime.Log)
	for _, w := range ws {
		if w.Log != nil {
			logs = append(logs, w.Log)
		}
	}
	if fn == nil && len(logs) == 0 {
		return nil
	}
	return func(l runtime.Log) {
		if fn != nil {
			fn(l.Level, l.Text)
		}
		for _, lf := range logs {
			lf(l)
		}
	}
}

// observed tells the watches how the run ended.
func (p *Plugin) observed(ws []*RunWatch, out runtime.Outcome) {
	if len(ws) == 0 {
		return
	}
	end := RunEnd{Outcome: out, Fresh: p.opts.Mode != runtime.ModePersistent || out.Reset}
	for _, w := range ws {
		if w.Done != nil {
			w.Done(end)
		}
	}
}
