package engine

import (
	"encoding/json"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

// VM is the lower seam: one JavaScript realm of an engine, with the sandbox
// prelude (see [Prelude]) installed. It is all an engine implements; the
// event loop, the nested-call scheduler, the deadline and hard-stop timers,
// the warm pool and the classification of failures are this package's
// (see [New]).
//
// # Goroutines and ownership
//
// A VM is driven by one goroutine at a time: the pool's filler while it is
// built or reset, then the goroutine of the run in progress (a worker, or
// Run's own caller), which calls Begin, Eval, RunJobs and Settle, then End.
// Only Interrupt and HardStop may be called from any goroutine, at any
// time, including concurrently with the driving goroutine. Whoever drives
// the VM last closes it: this package never calls Close while another
// goroutine is inside the VM.
//
// # Errors
//
// Eval, RunJobs and Settle return nil, a [*Thrown] (a JavaScript exception
// reached the top: described by the prelude's describe), a [*Fault] (the
// VM itself stopped: interrupted, out of memory, stack exhausted, crashed),
// or any other error (a bug: INTERNAL).
type VM interface {
	// Configure applies an environment's limits, before its first run.
	Configure(c VMConfig) error
	// Begin starts a run: until End, the realm's bindings report to r
	// (console lines, nested calls, the program's outcome), and `tools`
	// lists r.Job().Tools. A pending Interrupt stays pending.
	Begin(r *Run) error
	// Eval evaluates the prepared script under the given name. The value
	// it completes with is the program's promise (or a plain value):
	// the VM reports its settlement through [Run.Done], at the latest
	// when the next RunJobs returns.
	Eval(script, name string) error
	// RunJobs runs pending promise jobs until none is left (a no-op for
	// an engine that runs them after every entry into JavaScript).
	RunJobs() error
	// Settle resolves or rejects the promises of finished nested calls,
	// each by the id [Run.Call] gave it, in order, and fires due timers:
	// a settlement (with no value) of an id [Run.Timer] gave calls the
	// callback the glue registered for it. A value that is not valid JSON
	// rejects with [InvalidResult].
	Settle(batch []Settlement) error
	// Interrupt makes JavaScript running now, or started later, stop with
	// a Fault of kind FaultInterrupted, until End. Any goroutine.
	Interrupt()
	// HardStop stops the VM even inside a built-in that never checks for
	// interrupts, where the engine can; the VM is broken afterwards. Any
	// goroutine. Engines that cannot report false from
	// [Capabilities.HardStop] and make it a no-op.
	HardStop()
	// End finishes a run and clears a pending interrupt. stopped is true
	// when the run was interrupted. It reports whether the realm can run
	// another program (a persistent environment goes on only if so).
	End(stopped bool) bool
	// Globals lists the enumerable global names programs added (see the
	// prelude's globals), between runs.
	Globals() ([]string, error)
	// Retained reports the bytes the realm holds between runs that count
	// against its environment's memory budget and the process's: exact
	// where the engine has its own memory (a wasm memory's size), an
	// estimate where it shares the Go heap (goja: see its guard). Called
	// between runs, by the goroutine that drives the VM last.
	Retained() int64
	// Fits reports whether the VM can serve an environment with this
	// memory limit (a wasm memory never shrinks).
	Fits(memoryLimit int64) bool
	// Reusable reports whether, released by a per-call environment, the VM
	// may get a fresh realm from [Driver.Reset] and serve again.
	Reusable() bool
	// Close releases the VM. Only its driving goroutine calls it.
	Close() error
}

// VMConfig is an environment's options, the engine's defaults applied.
type VMConfig struct {
	Persistent    bool
	MemoryLimit   int64 // bytes
	MaxStackDepth int   // frames
	// MaxCodeBytes and MaxNestingDepth bound source text a program hands
	// to eval or Function (engines whose parser runs on the Go stack);
	// zero means the runtime's defaults.
	MaxCodeBytes, MaxNestingDepth int
}

// Driver makes an engine's VMs: what [New] needs besides the VM itself.
type Driver interface {
	// NewVM returns a fresh realm with the prelude installed. It is called
	// by the pool's filler, or by NewEnv when the pool is empty.
	NewVM() (VM, error)
	// Reset gives a VM that a per-call environment released, and that
	// reported Reusable, a realm as fresh as NewVM's.
	Reset(VM) error
	// Close releases what the VMs share, once every VM is closed.
	Close() error
}

// Capabilities are what the shared machinery needs to know of an engine.
type Capabilities struct {
	// Name prefixes internal error messages ("goja", "wazero").
	Name string
	// HardStop is true when VM.HardStop stops any code. A run that will
	// not make a nested call inline (its source does not name `tools`)
	// then runs on Run's own goroutine, saving a hand-off to a worker
	// (~20 µs on wazero): the hard stop bounds it. Without a hard stop
	// every run is on a worker, so that Run can return at the deadline
	// plus [Grace] whatever the VM does.
	HardStop bool
	// SourceMaps is true when the VM applies a TypeScript script's inline
	// source map to the positions it reports (they then name program.ts);
	// otherwise this package maps them.
	SourceMaps bool
	// PoolSize is the number of warm VMs. If zero, 2; if negative, none.
	PoolSize int
	// MemoryLimit and MaxStackDepth are the defaults of EnvOptions' zero
	// fields.
	MemoryLimit   int64
	MaxStackDepth int
	// Grace overrides [Grace] (tests).
	Grace time.Duration
	// MaxAbandoned bounds the runs abandoned at their hard stop whose VM
	// is still busy (a built-in that never checks for interrupts): while
	// that many are, Run refuses new programs with OVERLOADED, so one
	// program after another cannot pile up cores. If zero,
	// [DefaultMaxAbandoned]; if negative, no bound.
	MaxAbandoned int
}

// DefaultMaxAbandoned is the default of Capabilities.MaxAbandoned.
const DefaultMaxAbandoned = 2

// Settlement is the outcome of one nested call, for VM.Settle.
type Settlement struct {
	ID   int
	Name string // the tool, for messages
	// Value is the JSON the binding resolves to; empty means undefined.
	Value json.RawMessage
	// Err, when not nil, rejects the binding with an Error carrying its
	// code, message and info (see the prelude's bindingError).
	Err *errs.Error
}

// InvalidResult is the error a binding rejects with when its tool
// returned text that is not JSON.
func InvalidResult(name string, err error) *errs.Error {
	return errs.Errorf(errs.CodeToolError, "tool %q returned a result that is not valid JSON: %v", name, err)
}

// Thrown is a JavaScript exception as the prelude's describe reports it.
type Thrown struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Stack   string `json:"stack"`
	IsError bool   `json:"error"`  // an Error instance
	Thrown  string `json:"thrown"` // typeof a thrown non-Error
	Code    string `json:"code"`   // set for a binding's rejection
	Info    any    `json:"info"`   // the rejection's info, if any
	Plain   bool   `json:"plain"`  // our own message, reported as is
	// Line and Column are the position of a syntax error that has no
	// stack (an engine's own parser), in the script.
	Line   int `json:"-"`
	Column int `json:"-"`
}

func (t *Thrown) Error() string { return t.Name + ": " + t.Message }

// FaultKind says why a VM stopped.
type FaultKind int

// The kinds of Fault.
const (
	// FaultInterrupted: Interrupt or HardStop took effect.
	FaultInterrupted FaultKind = iota
	// FaultStackOverflow: the engine's stack (not a catchable RangeError).
	FaultStackOverflow
	// FaultMemory: the memory cap was hit.
	FaultMemory
	// FaultCrash: the engine failed; its state is lost.
	FaultCrash
)

// Fault is a VM stopping, as opposed to a program throwing.
type Fault struct {
	Kind FaultKind
	// Message, for FaultMemory, names the limit; Stack, for
	// FaultStackOverflow, is the engine's stack if it has one.
	Message, Stack string
	Info           map[string]any
	Err            error
}

func (f *Fault) Error() string {
	if f.Err != nil {
		return f.Err.Error()
	}
	return f.Message
}

func (f *Fault) Unwrap() error { return f.Err }
