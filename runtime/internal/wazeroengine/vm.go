package wazeroengine

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/quickjs"
	"github.com/codemode/codemode/tools/errs"
)

//go:embed glue.js
var glue string

// prelude is the sandbox prelude with this engine's glue.
var prelude = engine.Prelude(glue)

// The prelude's entry points: engine.Entry*, then glue.js's.
const (
	fnBeginJSON = engine.EntryGlue + iota
	fnWatch
	fnSettle
	fnGlobalsJSON
	fnFormatArgs
	numPreludeFns
)

// hostFuncID is the id of the host function behind the glue's native
// (QTS_NewFunction's host reference); consoleFuncID+k is console's
// consoleLevels[k] (hostConsole), refusedFuncID the glue's refused
// (hostRefused). Any other id reaching Hooks.Call is a bug.
const (
	hostFuncID    uint32 = 1
	consoleFuncID uint32 = 2
	refusedFuncID        = consoleFuncID + uint32(len(consoleLevels))
)

// consoleMask has the bits of console's host function ids
// (quickjs.Instance.SetSilent).
const consoleMask = (1<<len(consoleLevels) - 1) << consoleFuncID

// consoleLevels are the console methods that are host functions.
var consoleLevels = [...]string{"log", "info", "warn", "error", "debug"}

// vm is one QuickJS instance with one live JSContext that has the prelude
// installed. It implements engine.VM.
type vm struct {
	d    *driver
	inst *quickjs.Instance
	ctx  quickjs.Context
	fns  [numPreludeFns]quickjs.Value // owned, freed with the context
	// programs counts the programs run on this instance (across contexts).
	programs int
	// dirty is set when the instance must not get another context: a run
	// was stopped, ran out of memory, or left jobs behind.
	dirty bool
	cfg   engine.VMConfig
	limit int64 // the memory cap: cfg's, at least the module's initial memory, at most Options.MaxMemory

	// idleMu keeps the idle compaction (compact) away from every call
	// into the instance: runs (Begin to End) and the engine's calls
	// between runs (Configure, Globals, Reset, Close).
	idleMu sync.Mutex
	inRun  bool        // between Begin and End
	closed bool        // Close was called
	idle   *time.Timer // runs compact CompactAfter after a persistent run's End

	polyfilled  uint32      // the es.js features installed in ctx (engine.Polyfills)
	run         *engine.Run // the run in progress; the host hooks report to it
	refusal     *errs.Error // the run's SUBCALL_LIMIT refusal, once the glue has its message (nil at Begin)
	interrupted atomic.Bool
	silenced    bool // console's host functions are silent (hostConsole)
}

var _ engine.VM = (*vm)(nil)

// pristine is a snapshot of an instance holding one context with the
// prelude installed, taken before any program ran in it, and the pointers
// into it a vm needs. Restoring it is how instances get a fresh context
// (see quickjs.Snapshot): byte for byte the state no program touched.
type pristine struct {
	snap *quickjs.Snapshot
	ctx  quickjs.Context
	fns  [numPreludeFns]quickjs.Value
}

// newVM instantiates the module and prepares a context: from the pristine
// snapshot when there is one, else by building the context.
func (d *driver) newVM() (*vm, error) {
	p, first, err := d.pristine()
	if err != nil || first != nil {
		return first, err
	}
	if p != nil {
		inst, err := d.rt.NewInstanceFrom(d.bgCtx, p.snap)
		if err == nil {
			v := &vm{d: d, inst: inst, ctx: p.ctx, fns: p.fns}
			inst.Hooks = quickjs.Hooks{Call: v.hostCall, Interrupt: v.interrupt}
			return v, nil
		}
		if !errors.Is(err, quickjs.ErrSnapshotUnsupported) {
			return nil, err
		}
		// This instance's memory fell back to the Go heap: build its
		// context instead.
	}
	return d.buildVM()
}

// buildVM instantiates the module and builds a context in it.
func (d *driver) buildVM() (*vm, error) {
	inst, err := d.rt.NewInstance(d.bgCtx)
	if err != nil {
		return nil, err
	}
	v := &vm{d: d, inst: inst}
	inst.Hooks = quickjs.Hooks{Call: v.hostCall, Interrupt: v.interrupt}
	if err := v.newContext(); err != nil {
		inst.Close()
		return nil, err
	}
	return v, nil
}

// pristine returns the driver's snapshot, nil where snapshots are
// unsupported. The first call takes it, from a vm built for the purpose,
// and returns that vm too (it is as pristine as a restored one).
func (d *driver) pristine() (*pristine, *vm, error) {
	d.snapMu.Lock()
	defer d.snapMu.Unlock()
	if d.snap != nil || d.noSnap {
		return d.snap, nil, nil
	}
	v, err := d.buildVM()
	if err != nil {
		return nil, nil, err
	}
	// Runs then allocate in pages of their own (quickjs.Instance.FillFree).
	if _, _, err := v.inst.FillFree(); err != nil {
		v.inst.Close()
		return nil, nil, err
	}
	snap, err := v.inst.Snapshot()
	if errors.Is(err, quickjs.ErrSnapshotUnsupported) {
		d.noSnap = true
		return nil, v, nil
	}
	if err != nil {
		v.inst.Close()
		return nil, nil, err
	}
	d.snap = &pristine{snap: snap, ctx: v.ctx, fns: v.fns}
	return d.snap, v, nil
}

// errNoRestore refuses to reuse an instance without a snapshot to restore.
var errNoRestore = errors.New("wazero engine: no snapshot to restore: the instance is not reused")

// reset gives the vm a fresh context: the pristine snapshot restored.
// Without one (snapshots unsupported: off Linux, or this instance's memory
// fell back to the Go heap) it fails and the pool closes the instance: a
// new context in the same QuickJS runtime would keep whatever a program
// corrupted there (the allocator, atoms, shapes: a memory-safety bug of
// the pinned QuickJS-ng, docs/engines.md) for the next program, another
// session's. The restore resets the whole linear memory and every mutable
// global, so nothing a program did reaches the next one.
func (d *driver) reset(v *vm) error {
	v.idleMu.Lock()
	defer v.idleMu.Unlock()
	d.snapMu.Lock()
	p := d.snap
	d.snapMu.Unlock()
	if p != nil {
		err := v.inst.Restore(p.snap)
		if !errors.Is(err, quickjs.ErrSnapshotUnsupported) {
			if err != nil {
				return err
			}
			v.ctx, v.fns, v.polyfilled = p.ctx, p.fns, 0
			return nil
		}
	}
	return errNoRestore
}

// newContext creates a JSContext and installs the prelude.
func (v *vm) newContext() error {
	i := v.inst
	c, err := i.NewContext()
	if err != nil {
		return fmt.Errorf("wazero engine: creating a context: %w", err)
	}
	v.ctx = c
	v.polyfilled = 0
	factory, err := i.Eval(c, prelude, engine.PreludeName, quickjs.EvalGlobal)
	if err != nil {
		return fmt.Errorf("wazero engine: evaluating the prelude: %w", err)
	}
	defer i.FreeValue(c, factory)
	if err := v.check(factory); err != nil {
		return fmt.Errorf("wazero engine: evaluating the prelude: %w", err)
	}
	host, err := i.NewFunction(c, "host", hostFuncID)
	if err != nil {
		return err
	}
	defer i.FreeValue(c, host)
	arr, err := i.CallFunction(c, factory, host)
	if err != nil {
		return err
	}
	defer i.FreeValue(c, arr)
	if err := v.check(arr); err != nil {
		return fmt.Errorf("wazero engine: installing the prelude: %w", err)
	}
	for k := range v.fns {
		if v.fns[k], err = i.GetIndex(c, arr, k); err != nil {
			return err
		}
	}
	return nil
}

// freeContext releases the context and the prelude's entry points.
func (v *vm) freeContext() error {
	for k, f := range v.fns {
		v.inst.FreeValue(v.ctx, f)
		v.fns[k] = 0
	}
	err := v.inst.FreeContext(v.ctx)
	v.ctx = 0
	return err
}

// check returns an error if val holds an exception (used for our own code,
// whose exceptions are bugs).
func (v *vm) check(val quickjs.Value) error {
	exc, err := v.inst.Exception(v.ctx, val)
	if err != nil {
		return err
	}
	if exc == 0 {
		return nil
	}
	defer v.inst.FreeValue(v.ctx, exc)
	s, err := v.inst.GetString(v.ctx, exc)
	if err != nil {
		return errors.New("an exception that cannot be read")
	}
	return errors.New(s)
}

// compact runs when a persistent environment was idle for CompactAfter:
// the instance gives back its call stacks and the pages it can read again
// from the snapshot (see quickjs.Instance.Compact).
func (v *vm) compact() {
	d := v.d
	d.closeMu.RLock()
	defer d.closeMu.RUnlock()
	v.idleMu.Lock()
	defer v.idleMu.Unlock()
	if d.closed || v.closed || v.inRun || v.inst.Broken() != nil {
		return
	}
	v.inst.Compact()
}

// armIdle schedules compact after a persistent run (called with idleMu).
func (v *vm) armIdle() {
	after := v.d.opts.CompactAfter
	if !v.cfg.Persistent || after < 0 {
		return
	}
	if v.idle == nil {
		v.idle = time.AfterFunc(after, v.compact)
		return
	}
	v.idle.Reset(after)
}

// Configure implements engine.VM.
func (v *vm) Configure(c engine.VMConfig) error {
	v.idleMu.Lock()
	defer v.idleMu.Unlock()
	v.cfg = c
	v.limit = min(max(c.MemoryLimit, v.d.rt.InitialMemory()), v.d.rt.MaxMemory())
	v.inst.SetMemoryLimit(v.limit)
	return v.inst.SetMaxStackSize(stackBytes(c.MaxStackDepth, v.limit))
}

// Begin implements engine.VM.
func (v *vm) Begin(r *engine.Run) error {
	v.idleMu.Lock()
	v.inRun = true
	v.idleMu.Unlock()
	v.run, v.refusal = r, nil
	if v.silenced {
		v.inst.SetSilent(0)
		v.silenced = false
	}
	v.programs++
	v.inst.ResetRefused()
	names := r.Job().Tools
	if names == nil {
		names = []string{}
	}
	config, _ := json.Marshal(map[string]any{"tools": names, "limit": v.limit})
	_, err := v.callString(fnBeginJSON, string(config))
	return err
}

// Eval implements engine.VM: the script, then watch on its value. The
// ECMAScript library functions QuickJS lacks or gets wrong (the prelude's
// es.js) are installed first, the first time a script names them.
func (v *vm) Eval(script, name string) error {
	i := v.inst
	v.d.polyOnce.Do(func() {
		// Once per engine, in a realm no program has run in yet.
		if needs, err := v.callString(engine.EntryPolyfill, engine.PolyfillNeeds); err == nil {
			v.d.polySkip = engine.PolyfillSkip(needs)
		}
	})
	if names, set := engine.Polyfills(script, v.polyfilled|v.d.polySkip); names != "" {
		v.polyfilled = set
		if _, err := v.callString(engine.EntryPolyfill, names); err != nil {
			return err
		}
	}
	p, err := i.Eval(v.ctx, script, name, quickjs.EvalGlobal)
	if err != nil {
		return v.callError(err)
	}
	exc, err := i.Exception(v.ctx, p)
	if err != nil {
		return v.callError(err)
	}
	if exc != 0 {
		i.FreeValue(v.ctx, p)
		return v.exception(exc)
	}
	_, err = v.callValue(fnWatch, p)
	i.FreeValue(v.ctx, p)
	return err
}

// RunJobs implements engine.VM.
func (v *vm) RunJobs() error {
	for {
		_, exc, err := v.inst.ExecutePendingJobs(v.ctx, -1)
		if err != nil {
			return v.callError(err)
		}
		if exc != 0 {
			return v.exception(exc)
		}
		if pending, err := v.inst.IsJobPending(); err != nil {
			return v.callError(err)
		} else if !pending {
			return nil
		}
	}
}

// Settle implements engine.VM: the results go to the prelude in one batch.
func (v *vm) Settle(batch []engine.Settlement) error {
	var b bytes.Buffer
	b.WriteByte('[')
	for k, c := range batch {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(c.ID))
		val := bytes.TrimSpace(c.Value)
		e := c.Err
		if e == nil && len(val) > 0 && !json.Valid(val) {
			e = engine.InvalidResult(c.Name, errors.New("invalid JSON"))
		}
		switch {
		case e != nil:
			m := map[string]any{"code": string(e.Code), "message": e.Error()}
			if len(e.Info) > 0 {
				m["info"] = e.Info
			}
			j, err := json.Marshal(m)
			if err != nil { // Info that JSON cannot hold: drop it
				delete(m, "info")
				j, _ = json.Marshal(m)
			}
			b.WriteString(",0,")
			b.Write(j)
		case len(val) == 0: // no value: the binding resolves to undefined
			b.WriteString(",2")
		default:
			b.WriteString(",1,")
			b.Write(val)
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	_, err := v.callString(fnSettle, b.String())
	return err
}

// Interrupt implements engine.VM: QuickJS's interrupt handler reads the
// flag while JavaScript runs.
func (v *vm) Interrupt() { v.interrupted.Store(true) }

// interrupt is QuickJS's interrupt handler, polled every few thousand
// bytecodes: the flag, or the deadline read from the clock.
func (v *vm) interrupt() bool {
	return v.interrupted.Load() || v.run != nil && v.run.Expired()
}

// HardStop implements engine.VM: every wasm loop counts down into Go,
// where a stopped instance traps, so even a long built-in stops.
func (v *vm) HardStop() { v.inst.Stop() }

// End implements engine.VM. A stopped run of a persistent environment
// may leave jobs behind; they run with the interrupt still raised, so each
// is cut short, and if the queue does not empty the context cannot be
// proven clean.
func (v *vm) End(stopped bool) bool {
	defer func() {
		v.run = nil
		v.interrupted.Store(false)
		v.idleMu.Lock()
		v.inRun = false
		v.armIdle()
		v.idleMu.Unlock()
	}()
	i := v.inst
	if stopped || i.Refused() {
		v.dirty = true
	}
	if i.Broken() != nil {
		return false
	}
	pending, err := i.IsJobPending()
	if err != nil {
		return false
	}
	if !pending {
		return true
	}
	v.dirty = true // jobs left behind: no fresh context from this instance
	if !v.cfg.Persistent || !stopped {
		return true
	}
	for k := 0; k < 100; k++ {
		_, exc, err := i.ExecutePendingJobs(v.ctx, -1)
		if err != nil {
			return false
		}
		i.FreeValue(v.ctx, exc)
		if pending, err := i.IsJobPending(); err == nil && !pending {
			return true
		}
	}
	return false
}

// Globals implements engine.VM.
func (v *vm) Globals() ([]string, error) {
	v.idleMu.Lock()
	defer v.idleMu.Unlock()
	s, err := v.callString(fnGlobalsJSON, "")
	if err != nil {
		return nil, err
	}
	var names []string
	if err := json.Unmarshal([]byte(s), &names); err != nil {
		return nil, err
	}
	return names, nil
}

// Retained implements engine.VM: the linear memory's size, exact (a wasm
// memory never shrinks, so this is its high-water mark; pages never
// touched cost no RSS, so it is an upper bound of what the process pays).
func (v *vm) Retained() int64 { return v.inst.MemorySize() }

// Fits implements engine.VM: a wasm memory never shrinks.
func (v *vm) Fits(limit int64) bool {
	return v.inst.MemorySize() <= max(limit, v.d.rt.InitialMemory())
}

// Reusable implements engine.VM.
func (v *vm) Reusable() bool {
	return v.inst.Broken() == nil && !v.dirty &&
		v.programs < v.d.opts.MaxPrograms &&
		v.inst.MemorySize() <= v.d.opts.HighWaterMemory
}

// Close implements engine.VM.
func (v *vm) Close() error {
	v.idleMu.Lock()
	defer v.idleMu.Unlock()
	v.closed = true
	if v.idle != nil {
		v.idle.Stop()
	}
	return v.inst.Close()
}

// callString calls prelude function fn with one string argument and
// returns its result as a string ("" for undefined).
func (v *vm) callString(fn int, arg string) (string, error) {
	a, err := v.inst.NewString(v.ctx, arg)
	if err != nil {
		return "", v.callError(err)
	}
	defer v.inst.FreeValue(v.ctx, a)
	return v.callValue(fn, a)
}

// callValue calls prelude function fn with one value argument.
func (v *vm) callValue(fn int, arg quickjs.Value) (string, error) {
	i := v.inst
	res, err := i.CallFunction(v.ctx, v.fns[fn], arg)
	if err != nil {
		return "", v.callError(err)
	}
	defer i.FreeValue(v.ctx, res)
	exc, err := i.Exception(v.ctx, res)
	if err != nil {
		return "", v.callError(err)
	}
	if exc != 0 {
		return "", v.exception(exc)
	}
	typ, err := i.Typeof(v.ctx, res)
	if err != nil || typ != "string" {
		return "", v.callError(err)
	}
	s, err := i.GetString(v.ctx, res)
	if err != nil {
		return "", v.callError(err)
	}
	return s, nil
}

// exception describes an exception value (and frees it): a Thrown, or,
// when the memory cap was hit, a memory fault.
func (v *vm) exception(exc quickjs.Value) error {
	t, err := v.describe(exc)
	v.inst.FreeValue(v.ctx, exc)
	if err != nil {
		return v.callError(err)
	}
	if v.inst.Refused() {
		return &engine.Fault{Kind: engine.FaultMemory, Message: v.memoryMessage(""), Info: map[string]any{"error": t.Name + ": " + t.Message}}
	}
	return t
}

// describe reads an exception value. When even describing fails (an
// exhausted heap, an interrupt), it falls back to JS_ToCString.
func (v *vm) describe(exc quickjs.Value) (*engine.Thrown, error) {
	i := v.inst
	res, err := i.CallFunction(v.ctx, v.fns[engine.EntryDescribe], exc)
	if err != nil {
		return nil, err
	}
	defer i.FreeValue(v.ctx, res)
	if e2, err := i.Exception(v.ctx, res); err != nil {
		return nil, err
	} else if e2 != 0 {
		i.FreeValue(v.ctx, e2)
		s, err := i.GetString(v.ctx, exc)
		if err != nil {
			s = "an exception that cannot be read"
		}
		return &engine.Thrown{Message: s}, nil
	}
	s, err := i.GetString(v.ctx, res)
	if err != nil {
		return nil, err
	}
	return engine.ParseThrown(s)
}

// callError classifies a failed call into the instance, which is broken
// now: it will be closed, never reused.
func (v *vm) callError(err error) error {
	if err == nil {
		return nil
	}
	var ce *quickjs.CallError
	errors.As(err, &ce)
	switch {
	case ce != nil && ce.Kind == "stopped":
		return &engine.Fault{Kind: engine.FaultInterrupted, Err: err}
	case v.inst.Refused() || errors.Is(err, quickjs.ErrOutOfMemory):
		return &engine.Fault{Kind: engine.FaultMemory, Message: v.memoryMessage("the environment was discarded"), Err: err}
	case ce != nil && ce.Kind == "stack":
		return &engine.Fault{Kind: engine.FaultStackOverflow, Err: err}
	}
	f := &engine.Fault{Kind: engine.FaultCrash, Err: err}
	if s := strings.TrimSpace(v.inst.Stderr()); s != "" {
		f.Info = map[string]any{"stderr": s}
	}
	return f
}

func (v *vm) memoryMessage(detail string) string {
	msg := "the program exceeded its memory limit of " + formatBytes(v.limit)
	if detail != "" {
		msg += "; " + detail
	}
	return msg
}

func formatBytes(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// hostRefused is the glue's refused(name), a nested call's first step,
// before the binding reads its arguments. Past the run's limit (counted
// by Run.Refused): the refusal's message the first time in the run, and
// undefined afterwards, when the glue has made its rejected promise (the
// name not read, no value made). Otherwise the call goes on (the glue
// then serialises the arguments and asks with "C"): undefined, or 1
// once the glue has a refusal (the run has ended, and a binding kept by
// the program was called).
func (v *vm) hostRefused(c quickjs.Context, argc, argv uint32) quickjs.Value {
	if r := v.run; r != nil && c == v.ctx && r.AtLimit() {
		name := ""
		if v.refusal == nil && argc > 0 {
			// The run's first refusal: its message names the call.
			if a, err := v.inst.Arg(argv, 0); err == nil {
				name, _ = v.inst.GetString(c, a)
			}
		}
		if e := r.Refused(name); e != nil {
			if e == v.refusal {
				return 0
			}
			v.refusal = e
			val, err := v.inst.NewString(c, e.Message)
			if err != nil {
				return 0
			}
			return val
		}
	}
	if v.refusal == nil {
		return 0
	}
	val, err := v.inst.NewFloat64(c, 1)
	if err != nil {
		return 0
	}
	return val
}

// hostConsole is console[level]: nothing once the run's log budget is
// spent (Run.LogSpent); plain strings joined here (what format does with
// them: no directive is read unless a first string with a '%' has
// arguments after it); anything else formatted by the prelude's format
// (formatArgs), whose exception, a program's toString that throws, say,
// is the method's.
func (v *vm) hostConsole(c quickjs.Context, level string, argc, argv uint32) quickjs.Value {
	r := v.run
	if r == nil || c != v.ctx {
		return 0
	}
	if r.LogSpent() {
		// The rest of the run's lines stop in the wasm (Begin clears it).
		v.inst.SetSilent(consoleMask)
		v.silenced = true
		return 0
	}
	i := v.inst
	text, ok, err := v.plainLine(c, argc, argv)
	if err != nil {
		return 0 // the instance is broken: the run fails with it
	}
	if !ok {
		args := make([]quickjs.Value, argc)
		for k := range args {
			if args[k], err = i.Arg(argv, k); err != nil {
				return 0
			}
		}
		res, err := i.CallFunction(c, v.fns[fnFormatArgs], args...)
		if err != nil {
			return 0
		}
		exc, err := i.Exception(c, res)
		if err != nil {
			i.FreeValue(c, res)
			return 0
		}
		if exc != 0 {
			i.FreeValue(c, res)
			t, err := i.Throw(c, exc)
			i.FreeValue(c, exc)
			if err != nil {
				return 0
			}
			return t
		}
		text, err = i.GetString(c, res)
		i.FreeValue(c, res)
		if err != nil {
			return 0
		}
	}
	r.Log(level, text)
	return 0
}

// plainLine is format's line for arguments that are all strings, when no
// directive applies; false for anything else.
func (v *vm) plainLine(c quickjs.Context, argc, argv uint32) (string, bool, error) {
	if argc == 0 {
		return "", true, nil
	}
	first, ok, err := v.inst.StringArg(c, argv, 0)
	if !ok || argc == 1 {
		return first, ok, err
	}
	if strings.IndexByte(first, '%') >= 0 {
		return "", false, nil
	}
	var b strings.Builder
	b.WriteString(first)
	for k := 1; k < int(argc); k++ {
		s, ok, err := v.inst.StringArg(c, argv, k)
		if !ok {
			return "", false, err
		}
		b.WriteByte(' ')
		b.WriteString(s)
	}
	return b.String(), true, nil
}

// hostCall is the host function: programs reach Go only through it (via
// console and tools, which the prelude built on it).
func (v *vm) hostCall(c quickjs.Context, argc, argv, id uint32) quickjs.Value {
	if id-consoleFuncID < uint32(len(consoleLevels)) {
		return v.hostConsole(c, consoleLevels[id-consoleFuncID], argc, argv)
	}
	if id == refusedFuncID {
		return v.hostRefused(c, argc, argv)
	}
	r := v.run
	if id != hostFuncID || argc < 1 || c != v.ctx {
		return 0
	}
	a, err := v.inst.Arg(argv, 0)
	if err != nil {
		return 0
	}
	s, err := v.inst.GetString(c, a)
	if err != nil || s == "" {
		return 0
	}
	op, payload := s[0], s[1:]
	if op == 'N' {
		// At setup: a console method (consoleNative), refused.
		fid := uint32(0)
		if payload == "refused" {
			fid = refusedFuncID
		}
		for k, level := range consoleLevels {
			if level == payload {
				fid = consoleFuncID + uint32(k)
			}
		}
		if fid == 0 {
			return 0
		}
		f, err := v.inst.NewFunction(c, payload, fid)
		if err != nil {
			return 0
		}
		return f
	}
	if r == nil {
		return 0
	}
	switch op {
	case 'L':
		if !r.LogSpent() {
			level, text, _ := strings.Cut(payload, "\n")
			r.Log(level, text)
			if !r.LogSpent() {
				return 0
			}
		}
		// The budget is spent: the glue drops later lines unformatted.
		val, err := v.inst.NewFloat64(v.ctx, 1)
		if err != nil {
			return 0
		}
		return val
	case 'C':
		nl := strings.IndexByte(payload, '\n')
		var name string
		if nl < 0 || json.Unmarshal([]byte(payload[:nl]), &name) != nil {
			return 0
		}
		if e := r.Refused(name); e != nil {
			// Past the limit: the glue rejects at once, with one Error
			// for every refused call of the run, made from the message
			// the first time (-2 afterwards).
			if e == v.refusal {
				val, err := v.inst.NewFloat64(v.ctx, -2)
				if err != nil {
					return 0
				}
				return val
			}
			v.refusal = e
			val, err := v.inst.NewString(v.ctx, e.Message)
			if err != nil {
				return 0
			}
			return val
		}
		val, err := v.inst.NewFloat64(v.ctx, float64(r.Call(name, json.RawMessage(payload[nl+1:]), 0)))
		if err != nil {
			return 0
		}
		return val
	case 'T':
		ms, err := strconv.ParseFloat(payload, 64)
		if err != nil {
			ms = 0
		}
		val, err := v.inst.NewFloat64(v.ctx, float64(r.Timer(ms)))
		if err != nil {
			return 0
		}
		return val
	case 'S':
		op, arg, _ := strings.Cut(payload, "\n")
		val, err := v.inst.NewString(v.ctx, engine.HostService(v.d.zone, op, arg))
		if err != nil {
			return 0
		}
		return val
	case 'X':
		if id, err := strconv.Atoi(payload); err == nil {
			r.ClearTimer(id)
		}
	case 'D':
		if strings.HasPrefix(payload, "e") && v.inst.Refused() {
			// The program failed because the memory cap was hit.
			info := map[string]any{}
			if t, err := engine.ParseThrown(payload[1:]); err == nil {
				info["error"] = t.Name + ": " + t.Message
			}
			r.Fail(&engine.Fault{Kind: engine.FaultMemory, Message: v.memoryMessage(""), Info: info})
			return 0
		}
		r.Done(payload)
	}
	return 0
}
