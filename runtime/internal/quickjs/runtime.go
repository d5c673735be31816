package quickjs

import (
	"cmp"
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// RuntimeOptions configures NewRuntime. A zero value means defaults.
type RuntimeOptions struct {
	// Artifact is the loaded artifact. If nil, LoadArtifact("") is used.
	Artifact *Artifact
	// CacheDir is wazero's on-disk compilation cache. If empty, the
	// compilation is not cached (a new process pays 0.5–1 s to compile).
	CacheDir string
	// MaxMemoryPages is the wasm memory maximum declared in the rewritten
	// module, in 64 KiB pages, and the size of each instance's address
	// space reservation. If zero, 32768 (2 GiB, the glue's maximum).
	// Per-instance limits (Instance.SetMemoryLimit) are enforced below it.
	MaxMemoryPages uint32
	// Location is the time zone of Date's local time (libc's localtime and
	// tzset). If nil, UTC. Programs learn nothing of the host's zone.
	Location *time.Location
}

// Runtime is one wazero runtime holding the compiled QuickJS module and the
// Go host module that implements its imports. Instances are created from it
// concurrently. Close it after every Instance is closed (closing the runtime
// first closes the instances too).
type Runtime struct {
	wr        wazero.Runtime
	cache     wazero.CompilationCache
	compiled  wazero.CompiledModule
	abi       *abi
	maxPages  uint32
	initPages uint32
	globals   []string       // exports of the mutable globals (exportMutableGlobals)
	stack     stackLayout    // the C stack (findStack); zero if unknown
	silent    string         // export of the host-call mask's global (addHostMask)
	loc       *time.Location // Date's local time zone (RuntimeOptions.Location)

	tagOnce sync.Once
	strTag  atomic.Uint32 // a string JSValue's tag (Instance.StringArg); 0 until known

	closed atomic.Bool
}

// NewRuntime compiles the module (or loads it from the compilation cache)
// and instantiates the host module.
func NewRuntime(ctx context.Context, opts RuntimeOptions) (*Runtime, error) {
	art := opts.Artifact
	if art == nil {
		a, err := LoadArtifact("")
		if err != nil {
			return nil, err
		}
		art = a
	}
	maxPages := opts.MaxMemoryPages
	if maxPages == 0 {
		maxPages = 32768
	}
	a, err := parseGlue(string(art.Glue))
	if err != nil {
		return nil, fmt.Errorf("quickjs: reading the ABI from %s: %w", GlueFile, err)
	}
	wasm, mi, err := defineImportedMemory(art.Wasm, maxPages)
	if err != nil {
		return nil, fmt.Errorf("quickjs: rewriting the memory import: %w", err)
	}
	if wasm, err = fixQuickJS(wasm); err != nil {
		return nil, fmt.Errorf("quickjs: fixing the build's known bugs: %w", err)
	}
	if wasm, err = trimQuickJS(wasm); err != nil {
		return nil, fmt.Errorf("quickjs: trimming the build's hot paths: %w", err)
	}
	var pollName string
	for min, sem := range a.imports {
		if sem == "qts_host_interrupt_handler" {
			pollName = min
		}
	}
	poll, err := funcImportIndex(wasm, a.importModule, pollName)
	if err != nil {
		return nil, fmt.Errorf("quickjs: finding the interrupt import: %w", err)
	}
	if wasm, err = addPolling(wasm, poll); err != nil {
		return nil, fmt.Errorf("quickjs: adding loop polling: %w", err)
	}
	var hostName string
	for min, sem := range a.imports {
		if sem == "qts_host_call_function" {
			hostName = min
		}
	}
	hostCall, err := funcImportIndex(wasm, a.importModule, hostName)
	if err != nil {
		return nil, fmt.Errorf("quickjs: finding the host-call import: %w", err)
	}
	wasm, silentIdx, err := addHostMask(wasm, hostCall)
	if err != nil {
		return nil, fmt.Errorf("quickjs: adding the host-call mask: %w", err)
	}
	// The stack's layout comes from the module as built: the rewrites
	// add a mutable global (addPolling's countdown).
	stack, err := findStack(art.Wasm, uint64(mi.min)*pageSize)
	if err != nil {
		stack = stackLayout{} // Compact keeps the dead stack's pages
	}
	var globals []string
	if wasm, globals, err = exportMutableGlobals(wasm); err != nil {
		return nil, fmt.Errorf("quickjs: exporting the mutable globals: %w", err)
	}
	targets := make([]string, numFns)
	for k, sem := range fnNames {
		if targets[k] = a.exports[sem]; targets[k] == "" {
			return nil, fmt.Errorf("quickjs: the glue does not map export %s", sem)
		}
	}
	if wasm, err = addDispatcher(wasm, targets); err != nil {
		return nil, fmt.Errorf("quickjs: adding the dispatcher: %w", err)
	}
	if mi.module != a.importModule || a.imports[mi.name] != "memory" {
		return nil, fmt.Errorf("quickjs: the wasm imports memory as %s.%s, the glue says otherwise", mi.module, mi.name)
	}

	// No WithCloseOnContextDone: loop polling (addPolling) does its job at a
	// fraction of the cost.
	cfg := wazero.NewRuntimeConfig().WithMemoryLimitPages(maxPages)
	var cache wazero.CompilationCache
	if opts.CacheDir != "" {
		c, err := wazero.NewCompilationCacheWithDir(opts.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("quickjs: opening the compilation cache: %w", err)
		}
		cache = c
		cfg = cfg.WithCompilationCache(c)
	}
	wr := wazero.NewRuntimeWithConfig(ctx, cfg)
	fail := func(err error) (*Runtime, error) {
		wr.Close(ctx)
		if cache != nil {
			cache.Close(ctx)
		}
		return nil, err
	}
	compiled, err := wr.CompileModule(ctx, wasm)
	if err != nil {
		return fail(fmt.Errorf("quickjs: compiling: %w", err))
	}
	if err := a.check(compiled.ImportedFunctions(), compiled.ExportedFunctions()); err != nil {
		return fail(fmt.Errorf("quickjs: the wasm does not match its glue: %w", err))
	}
	if _, ok := compiled.ExportedFunctions()[dispatchExport]; !ok {
		return fail(fmt.Errorf("quickjs: the rewritten wasm does not export %s", dispatchExport))
	}
	r := &Runtime{wr: wr, cache: cache, compiled: compiled, abi: a, maxPages: maxPages, initPages: mi.min, globals: globals, stack: stack, silent: fmt.Sprintf("%s%d", snapshotGlobalPrefix, silentIdx), loc: cmp.Or(opts.Location, time.UTC)}
	if err := r.instantiateHost(ctx); err != nil {
		return fail(fmt.Errorf("quickjs: host module: %w", err))
	}
	return r, nil
}

// Close closes the wazero runtime, every Instance, and the cache handle.
func (r *Runtime) Close(ctx context.Context) error {
	if r.closed.Swap(true) {
		return nil
	}
	err := r.wr.Close(ctx)
	if r.cache != nil {
		err = errors.Join(err, r.cache.Close(ctx))
	}
	return err
}

// InitialMemory is the memory of a fresh instance in bytes (the module's
// declared minimum; emscripten's INITIAL_MEMORY, 16 MiB for this build).
func (r *Runtime) InitialMemory() int64 { return int64(r.initPages) * pageSize }

// MaxMemory is the largest memory an instance can have, in bytes.
func (r *Runtime) MaxMemory() int64 { return int64(r.maxPages) * pageSize }

const pageSize = 65536

// instKey is the context key under which every call into an instance
// carries the *Instance, so that the shared host functions reach
// per-instance state without a lookup table.
type instKey struct{}

// instanceOf returns the Instance a host function is called for. A call
// without one is a bug of ours: panic (wazero turns the panic into an error
// of the call, and the instance is discarded).
func instanceOf(ctx context.Context) *Instance {
	inst, ok := ctx.Value(instKey{}).(*Instance)
	if !ok {
		panic("quickjs: host function called without its instance in the context")
	}
	return inst
}

// NewInstance instantiates the module, runs its constructors and creates
// one QuickJS runtime (JSRuntime) in it, with the interrupt handler and the
// module loader enabled. Instantiation takes 1–5 ms.
func (r *Runtime) NewInstance(ctx context.Context) (*Instance, error) {
	inst, err := r.instantiate(ctx)
	if err != nil {
		return nil, err
	}
	if err := inst.init(ctx); err != nil {
		inst.Close()
		return nil, err
	}
	return inst, nil
}

// instantiate instantiates the module and binds its exports.
func (r *Runtime) instantiate(ctx context.Context) (*Instance, error) {
	if r.closed.Load() {
		return nil, errors.New("quickjs: runtime closed")
	}
	inst := &Instance{r: r}
	inst.limitBytes.Store(r.MaxMemory())
	inst.ctx = context.WithValue(context.Background(), instKey{}, inst)
	// The module's start section runs during instantiation and may call
	// host functions, so the instance rides in this context too.
	ictx := experimental.WithMemoryAllocator(context.WithValue(ctx, instKey{}, inst),
		experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
			inst.lm = newLinearMemory(capacity, max)
			return inst.lm
		}))
	mod, err := r.wr.InstantiateModule(ictx, r.compiled, wazero.NewModuleConfig().
		WithName(""). // anonymous: many instances of one module
		// The module imports no WASI, so nothing reads this source; without
		// it wazero seeds a math/rand source per instance (~5 KB of Go heap
		// that every idle environment kept: 49.8 MB of 294 MB at 10,000).
		WithRandSource(crand.Reader).
		WithStartFunctions())
	if err != nil {
		return nil, fmt.Errorf("quickjs: instantiating: %w", err)
	}
	inst.mod = mod
	inst.mem = mod.Memory()
	g, ok := mod.ExportedGlobal(r.silent).(api.MutableGlobal)
	if !ok {
		mod.Close(ctx)
		return nil, fmt.Errorf("quickjs: the host-call mask %s is not an exported mutable global", r.silent)
	}
	inst.silent = g
	return inst, nil
}
