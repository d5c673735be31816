// Package gojaengine runs code_run programs in goja, a JavaScript
// interpreter written in Go, in process.
//
// # Goroutines
//
// A goja Runtime belongs to one goroutine at a time. Each [engine.Env.Run]
// drives the VM on a goroutine of its own, an idle one left by an earlier
// run or a new one (runs of one environment are serialised, so the VM never
// has two owners); the caller's
// goroutine only waits, which is what lets Run return at the deadline even
// when the VM is stuck inside a long built-in call that goja cannot
// interrupt. Nested tool calls (Job.Call) run on goroutines of their own and
// their results come back to the VM's goroutine through a channel; each
// promise is settled exactly once, on that goroutine.
//
// # Environments
//
// Per-call environments come from a pool of pre-warmed runtimes (globals,
// console, `tools`, withheld-global traps installed) that a background
// goroutine keeps full; each is used for one program and dropped.
// Persistent environments keep their runtime across runs. Compiled programs
// are cached in a bounded LRU keyed by a hash of the script, and shared by
// all runtimes (a goja Program is immutable).
//
// # Program model
//
//   - console.log/info/warn/error/debug call Job.Log as they happen, on the
//     VM goroutine, formatted like Node (strings raw, other values inspected,
//     arguments joined with spaces, %s/%d/%i/%f/%j/%o/%O in a leading string).
//   - The return value leaves as JSON (JSON.stringify as captured at startup,
//     so a program cannot replace it); undefined is no value. A top-level
//     function, symbol or BigInt, and values with cycles or BigInts, fail with
//     RUNTIME_ERROR naming the problem. Functions nested in objects are
//     dropped, as JSON.stringify always does.
//   - An uncaught exception is RUNTIME_ERROR with the message and the stack.
//     An uncaught rejection of a tool binding keeps the tool call's code.
//   - A program whose promise is pending while no tool call is in flight can
//     never settle, and fails at once instead of waiting for the deadline.
//
// # Bindings
//
// The global `tools` answers every string property with an async function
// `(args) => Promise`, so `tools["mcp__srv__my-tool.v2"]` works and an
// unknown name still reaches Job.Call (whose registry answers UNKNOWN_TOOL
// with suggestions) instead of failing with "not a function". The exceptions
// keep the object sane for the language: `then` and `toJSON` are undefined
// (so `await tools` and JSON.stringify(tools) do not call tools), and the
// names of Object.prototype members (`toString`, `constructor`, …) resolve to
// the prototype unless they are real tool names. Object.keys(tools) lists
// Job.Tools. Rejections are Errors with `code` and `message` (and `info`
// when the failure has details).
//
// Withheld globals: `require`, `fetch`, `XMLHttpRequest`, `WebSocket`,
// `importScripts`, and the timers `setTimeout`, `setInterval`,
// `setImmediate` (and their clear* twins) are functions that throw an Error
// saying what to use instead. Timers are withheld on purpose: a program is
// a short script whose only asynchronous work is tool calls; sleeping only
// spends the caller's wall-clock budget, and a timer would also defeat the
// "can never settle" detection. `queueMicrotask` is provided (it is not a
// timer). `process`, `Deno` and `Bun` are undefined so feature probes keep
// working. Dynamic `import()` is a syntax error that says modules cannot be
// loaded. `Function("return this")()` reaches the global object, which holds
// nothing but the above.
//
// # Limits
//
//   - Deadline (Job.Deadline or ctx): Runtime.Interrupt, reported as TIMEOUT
//     (CANCELLED when ctx is cancelled). A built-in that goja cannot
//     interrupt (a huge 'x'.repeat) is abandoned after Options.Grace: Run
//     returns, the environment becomes unusable and is discarded when the
//     built-in finally returns.
//   - Stack depth: SetMaxCallStackSize, reported as STACK_OVERFLOW.
//   - A run ended by an uncatchable error (deadline, cancellation, memory
//     kill, stack overflow) makes a persistent environment unusable: goja
//     leaves such a VM with a stale call stack, after which it never runs
//     promise jobs again. Its globals are lost; the runtime starts over.
//   - Memory: see [Options.MemorySampleInterval] and the guard's doc in
//     guard.go. goja has no per-runtime allocator, so the guard is a
//     process-wide heap watchdog: it bounds how far a run can grow the
//     process heap, not what a runtime holds. Built-ins whose single call
//     could allocate without bound (ArrayBuffer and typed-array constructors,
//     String.prototype.repeat/padStart/padEnd, Array.prototype.join/fill,
//     Array.from) are checked against the budget before they allocate, since
//     an out-of-memory in the Go runtime would kill the process.
package gojaengine

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/tools/errs"
)

// Options configures the engine. A zero Options means the defaults.
type Options struct {
	// PoolSize is the number of pre-warmed runtimes kept ready for per-call
	// environments. If zero, 4. If negative, no pool: every environment is
	// created on demand.
	PoolSize int
	// ProgramCacheSize bounds the compiled-program cache. If zero, 256.
	ProgramCacheSize int
	// MemoryLimit is the memory budget of a run when EnvOptions.MemoryLimit
	// is zero, in bytes. If zero, 256 MiB.
	MemoryLimit int64
	// MaxStackDepth bounds the JavaScript call depth when
	// EnvOptions.MaxStackDepth is zero. If zero, 1000: deep enough for real
	// recursion, shallow enough that unwinding an overflow is instant.
	MaxStackDepth int
	// MaxConcurrentCalls bounds the nested calls of one run that are in
	// flight at once; more wait in order. It is a safety valve below the
	// runtime's own limit (a promise storm must not spawn 100k goroutines).
	// If zero, 16.
	MaxConcurrentCalls int
	// Grace is how long Run waits, after the deadline or a memory kill, for
	// a VM stuck in a built-in before abandoning it. If zero, 200ms.
	Grace time.Duration
	// MemorySampleInterval is how often the memory guard samples the heap
	// while programs run. If zero, 2ms. The guard goroutine sleeps when no
	// program runs.
	MemorySampleInterval time.Duration
}

func (o Options) withDefaults() Options {
	if o.PoolSize == 0 {
		o.PoolSize = 4
	}
	if o.ProgramCacheSize == 0 {
		o.ProgramCacheSize = 256
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = 256 << 20
	}
	if o.MaxStackDepth == 0 {
		o.MaxStackDepth = 1000
	}
	if o.MaxConcurrentCalls == 0 {
		o.MaxConcurrentCalls = 16
	}
	if o.Grace == 0 {
		o.Grace = 200 * time.Millisecond
	}
	if o.MemorySampleInterval == 0 {
		o.MemorySampleInterval = 2 * time.Millisecond
	}
	return o
}

type gojaEngine struct {
	opts     Options
	programs *lru.Cache[[sha256.Size]byte, *goja.Program]
	guard    *guard

	pool     chan *vmState   // nil when PoolSize < 0
	workers  *engine.Workers // the VM goroutines of runs
	refill   chan struct{}
	stop     chan struct{}
	wg       sync.WaitGroup
	closeMu  sync.Mutex
	isClosed bool
}

// New returns a goja engine. It starts two goroutines, the pool refiller
// and the memory guard; Close stops both.
func New(opts Options) (engine.Engine, error) {
	opts = opts.withDefaults()
	programs, err := lru.New[[sha256.Size]byte, *goja.Program](opts.ProgramCacheSize)
	if err != nil {
		return nil, err
	}
	if _, err := prelude(); err != nil {
		return nil, err
	}
	baseline()
	e := &gojaEngine{
		opts:     opts,
		programs: programs,
		guard:    newGuard(opts.MemorySampleInterval),
		refill:   make(chan struct{}, 1),
		workers:  engine.NewWorkers(),
		stop:     make(chan struct{}),
	}
	e.wg.Add(1)
	go func() { defer e.wg.Done(); e.guard.loop(e.stop) }()
	if opts.PoolSize > 0 {
		e.pool = make(chan *vmState, opts.PoolSize)
		e.wg.Add(1)
		go func() { defer e.wg.Done(); e.refillLoop() }()
		e.refill <- struct{}{}
	}
	return e, nil
}

// refillLoop keeps the pool full, off the request path. It builds one
// runtime at a time so warming never competes with running programs for
// more than one core.
func (e *gojaEngine) refillLoop() {
	for {
		select {
		case <-e.stop:
			return
		case <-e.refill:
		}
		for len(e.pool) < cap(e.pool) {
			select {
			case <-e.stop:
				return
			default:
			}
			st, err := newVMState()
			if err != nil {
				break // NewEnv creates on demand and reports the error
			}
			select {
			case e.pool <- st:
			default:
			}
		}
	}
}

func (e *gojaEngine) NewEnv(ctx context.Context, opts engine.EnvOptions) (engine.Env, error) {
	e.closeMu.Lock()
	closed := e.isClosed
	e.closeMu.Unlock()
	if closed {
		return nil, &errs.Error{Code: errs.CodeInternal, Message: "gojaengine: engine is closed"}
	}
	if err := ctx.Err(); err != nil {
		return nil, errs.AsError(err)
	}
	var st *vmState
	if e.pool != nil {
		select {
		case st = <-e.pool:
		default:
		}
		select {
		case e.refill <- struct{}{}:
		default:
		}
	}
	if st == nil {
		var err error
		if st, err = newVMState(); err != nil {
			return nil, err
		}
	}
	limit := opts.MemoryLimit
	if limit <= 0 {
		limit = e.opts.MemoryLimit
	}
	depth := opts.MaxStackDepth
	if depth <= 0 {
		depth = e.opts.MaxStackDepth
	}
	st.memLimit = limit
	st.depth = depth
	st.maxCode, st.maxNesting = opts.MaxCodeBytes, opts.MaxNestingDepth
	st.vm.SetMaxCallStackSize(depth)
	env := &env{eng: e, st: st, persistent: opts.Persistent}
	env.usable.Store(true)
	return env, nil
}

// Close stops the refill goroutine and the memory guard and drops the pool.
// Environments already handed out keep working, without memory guarding.
func (e *gojaEngine) Close() error {
	e.closeMu.Lock()
	if e.isClosed {
		e.closeMu.Unlock()
		return nil
	}
	e.isClosed = true
	e.closeMu.Unlock()
	close(e.stop)
	e.workers.Close()
	e.wg.Wait()
	if e.pool != nil {
		for {
			select {
			case <-e.pool:
				continue
			default:
			}
			break
		}
	}
	return nil
}

// compile returns the cached Program for a job's script, compiling it on a
// miss. Compiling is about 100× the cost of running a small program.
func (e *gojaEngine) compile(job *engine.Job) (*goja.Program, *errs.Error) {
	h := sha256.New()
	h.Write([]byte(job.Name))
	h.Write([]byte{0})
	h.Write([]byte(job.Script))
	var key [sha256.Size]byte
	h.Sum(key[:0])
	if p, ok := e.programs.Get(key); ok {
		return p, nil
	}
	ast, err := goja.Parse(job.Name, job.Script, parser.WithSourceMapLoader(denySourceMapFiles))
	if err != nil {
		return nil, syntaxErr(err, job.LineOffset)
	}
	p, err := goja.CompileAST(ast, false)
	if err != nil {
		return nil, syntaxErr(err, job.LineOffset)
	}
	e.programs.Add(key, p)
	return p, nil
}
