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
// # Instances, contexts and the pool
//
// An instance (package [quickjs]) is one wasm module instance holding one
// QuickJS runtime. An environment is one JavaScript context in an instance
// that nothing else uses while the environment lives. The engine keeps
// Options.PoolSize instances warm, each with a context already created and
// the sandbox prelude installed, so NewEnv is a hand-over. When a per-call
// environment closes, its instance gets a fresh context in the background
// (or in NewEnv, when the pool is empty) and goes back to the pool, unless it ran Options.MaxPrograms programs,
// grew past Options.HighWaterMemory (wasm memory never shrinks), timed out,
// ran out of memory, left jobs behind or crashed: then it is closed.
//
// A fresh context is not built but restored: the engine snapshots the first
// instance right after installing the prelude (see [quickjs.Snapshot]) and
// every later context, in a new instance or a released one, is that
// snapshot mapped copy-on-write over the linear memory. Building a context
// costs about 2.5 ms of CPU (mostly parsing the prelude); a restore costs
// an mmap plus the page faults of the pages the next program touches, and
// resets the whole QuickJS runtime, not only the context. Where snapshots
// are unsupported (outside Linux) contexts are built as before.
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
	"sync/atomic"
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
	// MaxStackDepth bounds the JavaScript call stack, in frames, when
	// EnvOptions.MaxStackDepth is zero. If zero, 10000. Frames are
	// converted to bytes of QuickJS's C stack (an estimate: frames with
	// many locals are bigger), capped at 4 MiB, the build's stack.
	MaxStackDepth int
	// MaxPrograms is how many programs an instance runs before it is
	// closed instead of reused. If zero, 100.
	MaxPrograms int
	// HighWaterMemory: an instance whose memory grew past this many bytes
	// is closed instead of reused. If zero, 64 MiB.
	HighWaterMemory int64
	// HardStopGrace is how long after the deadline (or cancellation, or
	// Env.Close) a run that the interrupt handler did not stop is
	// terminated by closing its instance. If zero, 250 ms.
	HardStopGrace time.Duration
}

func (o Options) withDefaults() Options {
	if o.PoolSize == 0 {
		o.PoolSize = 2
	}
	if o.MemoryLimit == 0 {
		o.MemoryLimit = 256 << 20
	}
	if o.MaxStackDepth == 0 {
		o.MaxStackDepth = 10000
	}
	if o.MaxPrograms == 0 {
		o.MaxPrograms = 100
	}
	if o.HighWaterMemory == 0 {
		o.HighWaterMemory = 64 << 20
	}
	if o.HardStopGrace == 0 {
		o.HardStopGrace = 250 * time.Millisecond
	}
	return o
}

// Engine is the wazero engine. It implements engine.Engine.
type Engine struct {
	opts  Options
	rt    *quickjs.Runtime
	bgCtx context.Context

	mu      sync.Mutex
	idle    []*vm // warm, ready for NewEnv
	recycle []*vm // released by envs, waiting for a fresh context
	envs    int   // environments handed out and not closed
	closed  bool
	kick    chan struct{} // wakes the filler
	stop    chan struct{} // closed by Close
	filler  sync.WaitGroup
	rtOnce  sync.Once
	rtErr   error

	snapMu sync.Mutex
	snap   *pristine // nil until the first vm, or when unsupported
	noSnap bool      // snapshots are unsupported here

	// filled, if set before the filler starts, is told each time the
	// filler has done all there was to do (tests wait on it instead of
	// sleeping).
	filled chan<- struct{}
	busy   atomic.Bool // the filler is working (read by tests)

	workers *engine.Workers // the goroutines runs drive their instance on
}

var _ engine.Engine = (*Engine)(nil)

// New loads the artifact, compiles (or loads from the cache) the module and
// starts filling the pool in the background. When an override directory
// lacks the artifact the error wraps quickjs.ErrArtifactMissing and names
// the command that writes one.
func New(opts Options) (engine.Engine, error) {
	e, err := newStoppedEngine(opts)
	if err != nil {
		return nil, err
	}
	e.start()
	return e, nil
}

// newStoppedEngine builds the engine without starting the filler.
func newStoppedEngine(opts Options) (*Engine, error) {
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
	ctx := context.Background()
	rt, err := quickjs.NewRuntime(ctx, quickjs.RuntimeOptions{Artifact: art, CacheDir: cacheDir})
	if err != nil {
		return nil, fmt.Errorf("wazero engine: %w", err)
	}
	e := &Engine{
		opts:    opts,
		rt:      rt,
		bgCtx:   ctx,
		kick:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		workers: engine.NewWorkers(),
	}
	return e, nil
}

func (e *Engine) start() {
	if e.opts.PoolSize > 0 {
		e.filler.Add(1)
		go e.fill()
		e.wake()
	}
}

func (e *Engine) wake() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

// fill keeps the pool full and gives released instances fresh contexts,
// off the request path.
func (e *Engine) fill() {
	defer e.filler.Done()
	for {
		select {
		case <-e.stop:
			return
		case <-e.kick:
		}
		e.busy.Store(true)
		for e.fillOne() {
		}
		e.busy.Store(false)
		if e.filled != nil {
			select {
			case e.filled <- struct{}{}:
			case <-e.stop:
			}
		}
	}
}

// fillOne adds one warm vm to the pool, preferring a released instance
// (a fresh context costs less than a fresh instance); false when there is
// nothing to do. Released instances wait in e.recycle while the pool is
// full.
func (e *Engine) fillOne() bool {
	e.mu.Lock()
	if e.closed || len(e.idle) >= e.opts.PoolSize {
		e.mu.Unlock()
		return false
	}
	var v *vm
	if n := len(e.recycle); n > 0 {
		v = e.recycle[n-1]
		e.recycle = e.recycle[:n-1]
	}
	e.mu.Unlock()

	if v != nil {
		if err := e.reset(v); err != nil {
			v.inst.Close()
			return true
		}
	} else {
		nv, err := e.newVM()
		if err != nil {
			// Creating instances fails only for a closed runtime or an
			// exhausted host; NewEnv will report the error itself.
			return false
		}
		v = nv
	}
	e.mu.Lock()
	if e.closed || len(e.idle) >= e.opts.PoolSize {
		e.mu.Unlock()
		v.inst.Close()
		return true
	}
	e.idle = append(e.idle, v)
	e.mu.Unlock()
	return true
}

// NewEnv implements engine.Engine. It hands out a warm instance when the
// pool has one, else instantiates one on the caller's goroutine.
func (e *Engine) NewEnv(ctx context.Context, opts engine.EnvOptions) (engine.Env, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	limit := opts.MemoryLimit
	if limit <= 0 {
		limit = e.opts.MemoryLimit
	}
	limit = max(limit, e.rt.InitialMemory())
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errors.New("wazero engine: closed")
	}
	var v *vm
	for len(e.idle) > 0 && v == nil {
		n := len(e.idle)
		v = e.idle[n-1]
		e.idle = e.idle[:n-1]
		if v.inst.MemorySize() > limit {
			// Grown past this environment's cap: no use here.
			e.recycle = append(e.recycle, v)
			v = nil
		}
	}
	// An empty pool: a released instance that fits is reset here, which
	// costs far less than a new instance (with a snapshot, microseconds).
	var reused *vm
	if v == nil {
		for k := len(e.recycle) - 1; k >= 0; k-- {
			if e.recycle[k].inst.MemorySize() <= limit {
				reused = e.recycle[k]
				e.recycle = append(e.recycle[:k], e.recycle[k+1:]...)
				break
			}
		}
	}
	e.envs++
	e.mu.Unlock()
	e.wake()
	if reused != nil {
		if err := e.reset(reused); err != nil {
			reused.inst.Close()
		} else {
			v = reused
		}
	}
	if v == nil {
		nv, err := e.newVM()
		if err != nil {
			e.release(nil)
			return nil, err
		}
		v = nv
	}
	v.inst.SetMemoryLimit(limit)
	depth := opts.MaxStackDepth
	if depth <= 0 {
		depth = e.opts.MaxStackDepth
	}
	if err := v.inst.SetMaxStackSize(stackBytes(depth)); err != nil {
		v.inst.Close()
		e.release(nil)
		return nil, err
	}
	return &env{e: e, v: v, opts: opts, limit: limit, abort: make(chan struct{})}, nil
}

// bytesPerFrame estimates QuickJS's C stack use per JavaScript call under
// emscripten (measured: about 160 bytes for a small function; we leave
// room for frames with more locals).
const bytesPerFrame = 256

// stackBytes converts a depth in frames to QuickJS's max stack size. The
// emscripten build has a 5 MiB stack; QuickJS must stop well before it.
func stackBytes(depth int) uint32 {
	n := int64(depth) * bytesPerFrame
	return uint32(min(max(n, 64<<10), 4<<20))
}

// release takes back an environment's vm (nil if it has none): into the
// recycle queue when it can serve again, else closed. Called by the
// goroutine that owns v.
func (e *Engine) release(v *vm) {
	e.mu.Lock()
	e.envs--
	reuse := v != nil && !e.closed && e.opts.PoolSize > 0 &&
		len(e.recycle) < e.opts.PoolSize &&
		v.inst.Broken() == nil && !v.dirty &&
		v.programs < e.opts.MaxPrograms &&
		v.inst.MemorySize() <= e.opts.HighWaterMemory
	if reuse {
		e.recycle = append(e.recycle, v)
	}
	last := e.closed && e.envs == 0
	e.mu.Unlock()
	if reuse {
		e.wake()
	} else if v != nil {
		v.inst.Close()
	}
	if last {
		e.closeRuntime()
	}
}

func (e *Engine) closeRuntime() {
	e.rtOnce.Do(func() {
		e.rtErr = e.rt.Close(context.Background())
		e.snapMu.Lock()
		if e.snap != nil {
			e.rtErr = errors.Join(e.rtErr, e.snap.snap.Close())
		}
		e.snapMu.Unlock()
	})
}

// Close implements engine.Engine: it stops the filler, closes the pooled
// instances, and closes the wazero runtime once every environment handed
// out is closed too.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	close(e.stop)
	e.mu.Unlock()
	e.workers.Close()
	e.filler.Wait()
	e.mu.Lock()
	vms := append(e.idle, e.recycle...)
	e.idle, e.recycle = nil, nil
	last := e.envs == 0
	e.mu.Unlock()
	for _, v := range vms {
		v.inst.Close()
	}
	if last {
		e.closeRuntime()
		return e.rtErr
	}
	return nil
}
