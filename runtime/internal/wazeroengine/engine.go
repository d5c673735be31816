// Package wazeroengine runs programs in QuickJS-ng compiled to WebAssembly,
// under wazero: the engine for programs a user does not trust.
//
// Compared with the goja engine it trades some speed for hard limits: the
// memory of an environment is a wasm linear memory capped exactly (a memory
// bomb ends as MEMORY_LIMIT and the process keeps its RSS), a deadline stops
// any code, built-ins included (QuickJS's interrupt handler first, wazero's
// context-driven termination as the backstop), and a crash of the engine
// takes down one wasm instance, never the process.
//
// The event loop, the nested-call scheduler, the timers, the warm pool and
// the prelude's shared modules are package engine's; this package is the
// glue: a VM (vm.go) over one QuickJS instance, and glue.js.
//
// # Instances, contexts and the pool
//
// An instance (package [quickjs]) is one wasm module instance holding one
// QuickJS runtime. An environment is one JavaScript context in an instance
// that nothing else uses while the environment lives. The pool keeps
// Options.PoolSize instances warm, each with a context already created and
// the sandbox prelude installed. When a per-call environment closes, its
// instance gets a fresh context (the snapshot restored) and serves again
// (the pool keeps as many as the per-call load had open at once; see
// engine.Base), unless it ran Options.MaxPrograms programs, grew past
// Options.HighWaterMemory (wasm memory never shrinks), timed out, ran out
// of memory, left jobs behind or crashed: then it is closed.
//
// A fresh context is not built but restored: the engine snapshots the first
// instance right after installing the prelude (see [quickjs.Snapshot]) and
// every later context, in a new instance or a released one, is that
// snapshot mapped copy-on-write over the linear memory. Building a context
// costs about 2.5 ms of CPU (mostly parsing the prelude); a restore costs
// an mmap plus the page faults of the pages the next program touches, and
// resets the whole QuickJS runtime, not only the context. Where snapshots
// are unsupported (outside Linux, or an instance whose memory fell back to
// the Go heap) contexts are built, and an instance serves one program:
// a context rebuilt in the runtime a program ran in would inherit what
// a bug of the engine let the program corrupt.
//
// # Idle environments
//
// An instance calls QuickJS through one exported dispatcher (see
// quickjs.addDispatcher), so it holds one wazero call stack per nesting
// level rather than one per export. A persistent environment idle for
// Options.CompactAfter compacts: its call stacks are dropped and the pages
// a run wrote back to the snapshot's bytes are shared again (see
// quickjs.Instance.Compact). Each instance reserves Options.MaxMemory of
// address space. docs/engines.md has the figures.
//
// # The artifact
//
// The QuickJS wasm is embedded in the binary (package quickjs/embed), so New
// needs nothing on disk but the compilation cache it keeps. A directory
// named by Options.ArtifactDir or $CODEMODE_QUICKJS_DIR replaces the
// embedded copy; New fails when it lacks the artifact, with a message
// naming the command that writes one (quickjs.FetchCommand).
package wazeroengine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/quickjs"
)

// Options configures New. A zero Options means defaults.
type Options struct {
	// PoolSize is the number of warm instances kept ready for new
	// environments. If zero, 2. If negative, there is no pool: every
	// NewEnv instantiates on the caller's goroutine (1–5 ms) and no
	// instance is reused.
	PoolSize int
	// ArtifactDir holds the QuickJS wasm artifact to run instead of the
	// embedded copy. If empty, $CODEMODE_QUICKJS_DIR; if that is unset
	// too, the embedded copy.
	ArtifactDir string
	// CacheDir is wazero's on-disk compilation cache; with it a new
	// process starts in tens of milliseconds instead of compiling for
	// 0.5–1 s. If empty, <user cache dir>/codemode/wazero. If "off", no
	// cache.
	CacheDir string
	// MemoryLimit is the memory cap of an environment whose
	// EnvOptions.MemoryLimit is zero, in bytes. If zero, 256 MiB. Any
	// limit acts as at least 16 MiB, the module's initial memory.
	MemoryLimit int64
	// MaxMemory is the largest memory limit an environment can have, in
	// bytes: a larger EnvOptions.MemoryLimit acts as MaxMemory. Each
	// instance reserves this much address space (not memory), so it bounds
	// how many instances fit in the process's 128 TiB of user address
	// space: 2 GiB each (the module's own maximum) stops near 60,000. If
	// zero, 1 GiB or MemoryLimit, whichever is larger; at most 2 GiB.
	MaxMemory int64
	// MaxStackDepth bounds the JavaScript call stack, in frames, when
	// EnvOptions.MaxStackDepth is zero. If zero, 10000. Frames are
	// converted to bytes of QuickJS's C stack (an estimate: frames with
	// many locals are bigger), capped at 4 MiB, the build's stack, and at
	// the memory budget / 100 (hostStackShare).
	MaxStackDepth int
	// MaxPrograms is how many programs an instance runs before it is
	// closed instead of reused. If zero, 100.
	MaxPrograms int
	// HighWaterMemory: an instance whose memory grew past this many bytes
	// is closed instead of reused. If zero, 64 MiB.
	HighWaterMemory int64
	// CompactAfter is how long a persistent environment sits idle before
	// its instance gives back what it can get again on demand: its call
	// stacks (Go heap) and the pages of its memory that a run wrote back
	// to the snapshot's bytes or to zeros (see quickjs.Instance.Compact).
	// The next run pays about 40 µs of CPU to grow a stack again. If
	// zero, 5 s. If negative, never.
	CompactAfter time.Duration
	// Grace overrides engine.Grace: how long after the deadline (or
	// cancellation, or Env.Close) a run that the interrupt handler did not
	// stop is hard-stopped (tests).
	Grace time.Duration
	// MaxAbandoned bounds the runs stopped at their deadline whose VM is
	// still busy in a built-in that cannot be interrupted; while that many
	// are, new programs are refused with OVERLOADED. If zero,
	// engine.DefaultMaxAbandoned (2); if negative, no bound.
	MaxAbandoned int
	// TimeZone is the time zone of Date's local time and of Intl's
	// default (engine.TimeZone): an IANA name, an offset or "UTC". If
	// empty, UTC. An unknown zone is New's error.
	TimeZone string
}

func (o Options) withDefaults() Options {
	if o.PoolSize == 0 {
		o.PoolSize = 2
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = 256 << 20
	}
	if o.MaxMemory == 0 {
		o.MaxMemory = max(1<<30, o.MemoryLimit)
	}
	o.MaxMemory = min(max(o.MaxMemory, 16<<20), 2<<30)
	if o.MaxStackDepth == 0 {
		o.MaxStackDepth = 10000
	}
	if o.MaxPrograms == 0 {
		o.MaxPrograms = 100
	}
	if o.CompactAfter == 0 {
		o.CompactAfter = 5 * time.Second
	}
	if o.HighWaterMemory == 0 {
		o.HighWaterMemory = 64 << 20
	}
	return o
}

// New loads the artifact, compiles (or loads from the cache) the module and
// starts filling the pool in the background. When an override directory
// lacks the artifact the error wraps quickjs.ErrArtifactMissing and names
// the command that writes one.
func New(opts Options) (engine.Engine, error) {
	b, err := newStopped(opts)
	if err != nil {
		return nil, err
	}
	b.Start()
	return b, nil
}

// newStopped builds the engine without starting the pool's filler.
func newStopped(opts Options) (*engine.Base, error) {
	opts = opts.withDefaults()
	art, err := quickjs.LoadArtifact(opts.ArtifactDir)
	if err != nil {
		return nil, fmt.Errorf("wazero engine: %w", err)
	}
	cacheDir := opts.CacheDir
	switch cacheDir {
	case "off":
		cacheDir = ""
	case "":
		if base, err := os.UserCacheDir(); err == nil {
			cacheDir = filepath.Join(base, "codemode", "wazero")
		}
	}
	zone, loc, err := engine.TimeZone(opts.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("wazero engine: time zone: %w", err)
	}
	ctx := context.Background()
	rt, err := quickjs.NewRuntime(ctx, quickjs.RuntimeOptions{Artifact: art, CacheDir: cacheDir, Location: loc,
		MaxMemoryPages: uint32((opts.MaxMemory + 65535) >> 16)})
	if err != nil {
		return nil, fmt.Errorf("wazero engine: %w", err)
	}
	d := &driver{opts: opts, rt: rt, bgCtx: ctx, zone: zone}
	return engine.NewStopped(engine.Capabilities{
		Name:          "wazero",
		HardStop:      true,
		PoolSize:      opts.PoolSize,
		MemoryLimit:   opts.MemoryLimit,
		MaxStackDepth: opts.MaxStackDepth,
		Grace:         opts.Grace,
		MaxAbandoned:  opts.MaxAbandoned,
	}, d), nil
}

// driver makes the engine's VMs: instances of one compiled module, with
// contexts restored from one pristine snapshot where it can.
type driver struct {
	opts  Options
	rt    *quickjs.Runtime
	bgCtx context.Context
	zone  string // the time zone's canonical name (Intl's default)

	// closeMu: compactions hold it for reading, Close for writing, so
	// that none touches an instance the runtime's Close unmaps.
	closeMu sync.RWMutex
	closed  bool

	snapMu sync.Mutex
	snap   *pristine // nil until the first vm, or when unsupported
	noSnap bool      // snapshots are unsupported here

	polyOnce sync.Once // polySkip: the es.js features QuickJS has right (engine.PolyfillSkip)
	polySkip uint32
}

func (d *driver) NewVM() (engine.VM, error) { return d.newVM() }

func (d *driver) Reset(v engine.VM) error { return d.reset(v.(*vm)) }

func (d *driver) Close() error {
	d.closeMu.Lock()
	d.closed = true
	d.closeMu.Unlock()
	err := d.rt.Close(context.Background())
	d.snapMu.Lock()
	if d.snap != nil {
		err = errors.Join(err, d.snap.snap.Close())
	}
	d.snapMu.Unlock()
	return err
}

// bytesPerFrame estimates QuickJS's C stack use per JavaScript call under
// emscripten (measured: about 160 bytes for a small function; we leave
// room for frames with more locals).
const bytesPerFrame = 256

// hostStackShare is the share of the memory budget QuickJS's C stack may
// take: limit/hostStackShare bytes. The C stack lives in linear memory,
// under the cap, but each C call also has a frame on wazero's own stack, a
// Go slice outside the cap that doubles (a copy) as it grows, 15–30 times
// the C stack's bytes (measured: ~5 KB a JavaScript call, ~2.3 KB a level
// of the parser's recursion; the C stack ~160 and ~100 bytes). At 2.56 MB of
// C stack, eval('['.repeat(200000)) grew it to ~45 MB and the process by
// 1.5–2.1 times a 64 MiB budget before the overflow; at limit/100 wazero's
// stack stays near a fifth of the budget. The default budget (256 MiB)
// keeps the full 10,000 frames.
const hostStackShare = 100

// stackBytes converts a depth in frames to QuickJS's max stack size, for a
// memory budget of limit bytes. The emscripten build has a 5 MiB stack;
// QuickJS must stop well before it.
func stackBytes(depth int, limit int64) uint32 {
	n := min(int64(depth)*bytesPerFrame, limit/hostStackShare)
	return uint32(min(max(n, 64<<10), 4<<20))
}
