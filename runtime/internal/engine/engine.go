// Package engine is the sandbox below the engine-neutral runtime, shared by
// the JavaScript engines that run programs (goja in process, QuickJS under
// wazero).
//
// It has two seams. The upper one, [Engine], [Env] and [Job], is what the
// runtime package drives: run a prepared script in an environment. The
// lower one, [VM] and [Driver], is what an engine implements: make a realm,
// evaluate, settle promise N, run pending jobs, interrupt, describe an
// exception, report memory. Between them this package owns everything
// else, once for every engine:
//
//   - the event loop and the nested-call scheduler ([Run]): calls held,
//     made inline when awaited alone, dispatched under one concurrency
//     bound, cancelled when the program ends;
//   - the deadline and hard-stop timers, one grace period ([Grace]) and one
//     abandon rule;
//   - the warm pool of VMs and the goroutines that drive them ([Base],
//     [Workers]);
//   - the classification of exceptions and faults into errs.Error, with
//     positions mapped to the user's source and the sandbox's own frames
//     dropped (errors.go, stack.go);
//   - the JavaScript prelude, assembled from shared modules and a small
//     per-engine glue file ([Prelude]).
//
// The runtime package owns what does not depend on the sandbox either:
// limits on nested calls and output, call records, environments'
// retention, TypeScript stripping and the persistent-mode source rewrite
// (package source).
package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

// Engine creates environments. Implementations are safe for concurrent use.
type Engine interface {
	// NewEnv returns a new environment. Per-call environments should come
	// from a warm pool so that creating one is off the request path.
	NewEnv(ctx context.Context, opts EnvOptions) (Env, error)
	// Close releases pooled resources. Environments already handed out stay
	// valid until their own Close.
	Close() error
}

// EnvOptions configures one environment. Zero fields mean the documented
// defaults of runtime.Limits.
type EnvOptions struct {
	// Persistent is true for persistent-in-memory environments (REPL
	// semantics); false for a per-call environment used for one program.
	Persistent bool
	// MemoryLimit is the memory budget in bytes.
	MemoryLimit int64
	// MaxStackDepth bounds the JS call stack (frames).
	MaxStackDepth int
	// MaxCodeBytes and MaxNestingDepth bound a string a program hands to
	// eval or Function, as runtime.Limits bounds programs, on engines whose
	// parser runs on the Go stack (goja).
	MaxCodeBytes    int
	MaxNestingDepth int
	// Released, if set, is called once, when the environment lets go of
	// its VM for good (closed, discarded after a failure, or, for a run
	// abandoned in a built-in, when the built-in returns): until then the
	// VM may hold memory. The runtime's memory governor gives a run's
	// reservation back here. Not called when NewEnv fails.
	Released func()
}

// Env is one JavaScript realm.
//
// Run must not be called concurrently on one Env; the runtime serialises runs
// of a persistent environment. Close may be called at any time, from any
// goroutine, including while Run is in progress (it then aborts the run).
type Env interface {
	Run(ctx context.Context, job *Job) Result
	// Globals lists the top-level names that programs declared in this
	// environment (persistent mode), sorted.
	Globals() []string
	// Usable is false when the environment must not run another program
	// (it crashed, ran out of memory, or was closed).
	Usable() bool
	// Retained reports the bytes a persistent environment held after its
	// last run, as the engine measures them (see VM.Retained); 0 for a
	// per-call one.
	Retained() int64
	Close() error
}

// Job is one program run.
type Job struct {
	// Script is the prepared JavaScript (see package source): evaluating
	// it yields a Promise of the program's return value.
	Script string
	// Name is the script name used in stack traces, e.g. "program.js".
	Name string
	// LineOffset is subtracted from engine-reported line numbers so that
	// positions refer to the user's source.
	LineOffset int
	// SourceLines is the number of lines of the user's source; stack
	// frames past it (the wrapper's) are dropped from stacks. Zero keeps
	// every frame.
	SourceLines int
	// EndColumn is the column just past the user's last character, where
	// a syntax error in the wrapper after the source is reported.
	EndColumn int
	// Tools are the names bound as async functions on the global `tools`.
	Tools []string
	// Call performs a nested tool call, from a goroutine of its own or, for
	// a call the program awaits alone, from the VM's goroutine, and the
	// result is brought back to the VM loop.
	// It returns the JSON value the binding resolves to, or an error that
	// tools.AsError classifies; the binding rejects with an Error carrying
	// `code` and `message`. Call honours ctx, which the engine cancels when
	// the program ends.
	Call func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
	// Log receives console output as it happens, in program order, from the
	// VM goroutine. level is "log", "info", "warn", "error" or "debug".
	Log func(level, text string)
	// LogSpent, if set, reports whether Log drops every further line (the
	// log budget is spent, the truncation notice already given): a
	// console line is then dropped before it is formatted (Run.LogSpent).
	// It must be cheap (an atomic load), and once true stay true for the
	// run.
	LogSpent func() bool
	// Deadline is the wall-clock limit of the run; ctx carries it too.
	Deadline time.Time
	// MaxConcurrentCalls bounds the nested calls in flight at once; more
	// wait in order. If zero, DefaultMaxConcurrentCalls.
	MaxConcurrentCalls int
	// MaxTimers bounds the timers pending at once (setTimeout,
	// setInterval); past it setTimeout throws. If zero, DefaultMaxTimers.
	MaxTimers int
	// MaxCalls, if positive, bounds the nested calls of the run: every
	// call past it is rejected with SUBCALL_LIMIT as it is made, never
	// queued (a program may catch that), and a program that makes
	// max(MaxCalls, 1000) more after that is stopped with SUBCALL_LIMIT:
	// one that makes 100,000 calls at once fails at call 2,001 (the
	// default 1,000), at once, instead of after the first 1,000 have run.
	MaxCalls int
}

// Result is the outcome of a Run.
type Result struct {
	// Value is the program's return value as JSON, nil for undefined.
	Value json.RawMessage
	// Err is nil on success. Its Info may hold "stack" (string),
	// "line" and "column" (ints, in the user's source).
	Err *errs.Error
	// LeftRunning is the number of nested calls still running when Run
	// returned: cancelled, they did not return within the grace period
	// (a tool body that ignores cancellation).
	LeftRunning int
	// Abandoned is true when the VM did not stop within the grace period
	// and Run gave it up (see [Grace]): it may still be running.
	Abandoned bool
}
