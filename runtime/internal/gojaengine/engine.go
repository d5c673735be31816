// Package gojaengine runs code_run programs in goja, a JavaScript
// interpreter written in Go, in process.
//
// The event loop, the nested-call scheduler, the deadline and hard-stop
// timers, the warm pool, the classification of failures and the prelude's
// shared modules are package engine's; this package is the glue: a VM
// (vm.go) over one goja Runtime, glue.js, and what only goja needs — the
// memory watchdog (guard.go), the checked eval and Function (gate.go), the
// compiled-program cache and a JSON decoder straight into goja values
// (jsonvalue.go).
//
// # Goroutines
//
// A goja Runtime belongs to one goroutine at a time: each run drives it on
// a worker goroutine (engine.Workers), and nested calls come back to it
// through the run's loop. goja cannot stop a built-in that never checks
// its interrupt flag (a huge 'x'.repeat), so a run that does not stop
// within engine.Grace of its deadline is abandoned: Run returns, and the
// VM is dropped when the built-in finally returns.
//
// # Environments
//
// Per-call environments come from a pool of pre-warmed runtimes (prelude
// run, async machinery built) that the pool's filler keeps full; each is
// used for one program and dropped (goja has no cheap way back to a
// pristine realm). Compiled programs are cached in a bounded LRU keyed by
// a hash of the script, and shared by all runtimes (a goja Program is
// immutable). A run ended by an uncatchable error (deadline, cancellation,
// memory kill, stack overflow) makes a persistent environment unusable:
// goja leaves such a VM with a stale call stack, after which it never runs
// promise jobs again.
//
// # Limits
//
//   - Deadline: Runtime.Interrupt, reported as TIMEOUT (CANCELLED when the
//     context is cancelled).
//   - Stack depth: SetMaxCallStackSize, reported as STACK_OVERFLOW.
//   - Memory: see [Options.MemorySampleInterval] and the guard's doc in
//     guard.go. goja has no per-runtime allocator, so the guard is a
//     process-wide heap watchdog: it bounds how far a run can grow the
//     process heap, not what a runtime holds. Built-ins whose single call
//     could allocate without bound (ArrayBuffer and typed-array
//     constructors, String.prototype.repeat/padStart/padEnd,
//     Array.prototype.join/fill/sort/map/…, Array.from) are checked against
//     the budget before they allocate (from inside goja's built-ins through
//     the patch runtime/internal/goja/sizecheck.go, or by glue.js and the
//     shared sizes.js), since an out-of-memory in the Go runtime would kill
//     the process; the string and JSON built-ins also ask the guard through
//     goja's allocation check (guard.go, allocate), which unwinds a killed
//     run's VM at its next such allocation.
//   - Source text handed to eval and the Function constructors is checked
//     like a program (size, nesting) before goja's recursive parser sees
//     it (gate.go).
package gojaengine

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/goja"
	parser "github.com/codemode/codemode/runtime/internal/jsparse"
)

// RegexpMatchTimeout bounds one regular-expression match that goja hands
// to regexp2 (patterns with lookaround or backreferences; the others run
// on Go's regexp, in linear time). regexp2 backtracks inside one native
// call that Runtime.Interrupt cannot stop, so without it a pattern could
// keep a core busy for minutes after its run's deadline. A match past it
// throws a RangeError (the in-tree goja patch, runtime/internal/goja's
// PATCHES.md) instead of reporting no match. (With a timeout, regexp2 keeps
// a clock goroutine of its own, which ends about two seconds after the last
// match: leak checks ignore it.)
const RegexpMatchTimeout = time.Second

func init() { regexp2.DefaultMatchTimeout = RegexpMatchTimeout }

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
	// EnvOptions.MaxStackDepth is zero. If zero, 10000, as wazero's: about
	// V8's depth for a small function (~10,800), so a recursion that runs
	// in Node runs on both engines (an overflow costs ~75 ms of CPU to
	// unwind, ~10 ms at 1000).
	MaxStackDepth int
	// Grace overrides engine.Grace (tests).
	Grace time.Duration
	// MaxAbandoned bounds the runs stopped at their deadline whose VM is
	// still busy in a built-in that cannot be interrupted; while that many
	// are, new programs are refused with OVERLOADED. If zero,
	// engine.DefaultMaxAbandoned (2); if negative, no bound.
	MaxAbandoned int
	// MemorySampleInterval is how often the memory guard samples the heap
	// while programs run. If zero, 2ms. The guard goroutine sleeps when no
	// program runs.
	MemorySampleInterval time.Duration
	// YieldInterval is how long a program runs before its goroutine lets
	// others of the process run (goja's SetYieldInterval): without it, a
	// tight loop keeps its P for Go's 10 ms preemption slice, and every
	// goroutine that lands behind it waits that long per hand-off, so one
	// busy program slows the requests of every other session. If zero,
	// 1ms; if negative, never.
	YieldInterval time.Duration
	// TimeZone is the time zone of Date's local time and of Intl's
	// default (engine.TimeZone): an IANA name, an offset or "UTC". If
	// empty, UTC. An unknown zone is New's error.
	TimeZone string
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
		o.MaxStackDepth = 10000
	}
	if o.MemorySampleInterval == 0 {
		o.MemorySampleInterval = 2 * time.Millisecond
	}
	if o.YieldInterval == 0 {
		o.YieldInterval = time.Millisecond
	}
	return o
}

// New returns a goja engine. It starts two goroutines, the pool's filler
// and the memory guard; Close stops both.
func New(opts Options) (engine.Engine, error) {
	d, err := newDriver(opts)
	if err != nil {
		return nil, err
	}
	return engine.New(engine.Capabilities{
		Name:          "goja",
		SourceMaps:    true,
		PoolSize:      d.opts.PoolSize,
		MemoryLimit:   d.opts.MemoryLimit,
		MaxStackDepth: d.opts.MaxStackDepth,
		Grace:         d.opts.Grace,
		MaxAbandoned:  d.opts.MaxAbandoned,
	}, d), nil
}

// driver makes the engine's VMs and holds what they share: the compiled
// programs and the memory guard.
type driver struct {
	opts     Options
	polyOnce sync.Once // polySkip: the es.js features goja has (engine.PolyfillSkip)
	polySkip uint32
	programs *lru.Cache[[sha256.Size]byte, *goja.Program]
	guard    *guard
	stop     chan struct{}
	wg       sync.WaitGroup
	zone     string         // the time zone's canonical name (Intl's default)
	loc      *time.Location // its location (Date's local time)
}

func newDriver(opts Options) (*driver, error) {
	opts = opts.withDefaults()
	programs, err := lru.New[[sha256.Size]byte, *goja.Program](opts.ProgramCacheSize)
	if err != nil {
		return nil, err
	}
	if _, err := compiledPrelude(); err != nil {
		return nil, err
	}
	zone, loc, err := engine.TimeZone(opts.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("goja engine: time zone: %w", err)
	}
	d := &driver{opts: opts, programs: programs, guard: newGuard(opts.MemorySampleInterval), stop: make(chan struct{}), zone: zone, loc: loc}
	d.wg.Add(1)
	go func() { defer d.wg.Done(); d.guard.loop(d.stop) }()
	return d, nil
}

func (d *driver) NewVM() (engine.VM, error) { return d.newVM() }

// Reset is never called: a goja VM is not Reusable.
func (d *driver) Reset(engine.VM) error { return errNoReset }

// Close stops the memory guard.
func (d *driver) Close() error {
	close(d.stop)
	d.wg.Wait()
	return nil
}

// compile returns the cached Program for a script, compiling it on a
// miss. Compiling is about 100× the cost of running a small program.
func (d *driver) compile(name, script string) (*goja.Program, error) {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(script))
	var key [sha256.Size]byte
	h.Sum(key[:0])
	if p, ok := d.programs.Get(key); ok {
		return p, nil
	}
	ast, err := goja.Parse(name, script, parser.WithSourceMapLoader(denySourceMapFiles))
	if err != nil {
		return nil, syntaxError(err)
	}
	p, err := goja.CompileAST(ast, false)
	if err != nil {
		return nil, syntaxError(err)
	}
	d.programs.Add(key, p)
	return p, nil
}
