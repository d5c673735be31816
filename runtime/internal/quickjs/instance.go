package quickjs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"
)

// Pointers into the instance's linear memory. A Value is an owned JSValue*
// that must be freed with FreeValue (or handed to QuickJS, which frees it);
// a Context is a JSContext*.
type (
	Value   uint32
	Context uint32
)

// Eval flags of QuickJS (quickjs.h).
const (
	EvalGlobal = 0 // JS_EVAL_TYPE_GLOBAL
	EvalStrict = 1 << 3
)

// Exported functions we call, indexed for a flat array lookup.
const (
	fnCtors = iota
	fnMalloc
	fnFree
	fnNewRuntime
	fnNewContext
	fnFreeContext
	fnSetMaxStackSize
	fnEnableInterrupt
	fnEnableModuleLoader
	fnEval
	fnCall
	fnExecutePendingJob
	fnIsJobPending
	fnFreeValue
	fnDupValue
	fnNewString
	fnGetString
	fnFreeCString
	fnNewFloat64
	fnGetFloat64
	fnNewFunction
	fnGetGlobalObject
	fnArgv
	fnGetUndefined
	fnTypeof
	fnResolveException
	fnGetPropNumber
	fnThrow
	numFns
)

var fnNames = [numFns]string{
	fnCtors:              "__wasm_call_ctors",
	fnMalloc:             "malloc",
	fnFree:               "free",
	fnNewRuntime:         "QTS_NewRuntime",
	fnNewContext:         "QTS_NewContext",
	fnFreeContext:        "QTS_FreeContext",
	fnSetMaxStackSize:    "QTS_RuntimeSetMaxStackSize",
	fnEnableInterrupt:    "QTS_RuntimeEnableInterruptHandler",
	fnEnableModuleLoader: "QTS_RuntimeEnableModuleLoader",
	fnEval:               "QTS_Eval",
	fnCall:               "QTS_Call",
	fnExecutePendingJob:  "QTS_ExecutePendingJob",
	fnIsJobPending:       "QTS_IsJobPending",
	fnFreeValue:          "QTS_FreeValuePointer",
	fnDupValue:           "QTS_DupValuePointer",
	fnNewString:          "QTS_NewString",
	fnGetString:          "QTS_GetString",
	fnFreeCString:        "QTS_FreeCString",
	fnNewFloat64:         "QTS_NewFloat64",
	fnGetFloat64:         "QTS_GetFloat64",
	fnNewFunction:        "QTS_NewFunction",
	fnGetGlobalObject:    "QTS_GetGlobalObject",
	fnArgv:               "QTS_ArgvGetJSValueConstPointer",
	fnGetUndefined:       "QTS_GetUndefined",
	fnTypeof:             "QTS_Typeof",
	fnResolveException:   "QTS_ResolveException",
	fnGetPropNumber:      "QTS_GetPropNumber",
	fnThrow:              "QTS_Throw",
}

// Hooks are the engine's side of the host functions. They are called on
// the goroutine that is inside a call into the instance.
type Hooks struct {
	// Call handles a call of a function made by NewFunction(id): argv
	// points at argc JSValues (see Arg). It returns an owned Value (0 for
	// undefined).
	Call func(ctx Context, argc, argv, id uint32) Value
	// Interrupt is polled by QuickJS every few thousand bytecodes; true
	// makes QuickJS throw an uncatchable "interrupted" error.
	Interrupt func() bool
}

// Instance is one instantiation of the module holding one JSRuntime.
//
// An Instance is not safe for concurrent use: one goroutine at a time calls
// its methods. Close may only be called by that goroutine too (closing frees
// the linear memory; see mmapMemory). The exceptions are Stop and
// SetMemoryLimit, which any goroutine may call at any time.
type Instance struct {
	r   *Runtime
	mod api.Module
	mem api.Memory
	lm  experimental.LinearMemory // mem's backing (see newLinearMemory)
	// disp[d] is the dispatcher (see addDispatcher) for calls made at
	// nesting depth d: a host function may call back into the instance,
	// and a wazero api.Function must not be re-entered. Each is bound on
	// first use.
	disp  []api.Function
	depth int
	stack [dispatchArgs + 1]uint64

	ctx     context.Context // carries instKey to the host functions
	stopped atomic.Bool

	rt        uint32 // JSRuntime*
	undefined uint32 // JSValueConst* of undefined
	scratch   uint32 // 64 bytes of malloc'd scratch for out-params and argv

	// Hooks may be replaced between calls.
	Hooks Hooks

	limitBytes atomic.Int64      // memory cap enforced by emscripten_resize_heap
	maxStack   uint32            // QuickJS's stack limit (SetMaxStackSize), 0 if never set
	silent     api.MutableGlobal // the host-call mask (addHostMask, SetSilent)
	refused    bool              // a heap growth was refused since ResetRefused
	stderr     bytes.Buffer      // what the C side printed (bounded), for crash reports
	exited     bool
	broken     error // the first failed call: the instance must not be reused
	closed     bool
}

// init runs the constructors and creates the JSRuntime.
func (i *Instance) init(ctx context.Context) error {
	if _, err := i.call(fnCtors); err != nil {
		return fmt.Errorf("quickjs: constructors: %w", err)
	}
	rt, err := i.call(fnNewRuntime)
	if err != nil || rt == 0 {
		return fmt.Errorf("quickjs: JS_NewRuntime failed: %v", err)
	}
	i.rt = uint32(rt)
	if _, err := i.call(fnEnableInterrupt, rt); err != nil {
		return err
	}
	// The loader answers every import() with a module that throws (see
	// hostLoadModuleSource); without a loader QuickJS's message would not
	// say what to do instead.
	if _, err := i.call(fnEnableModuleLoader, rt, 0); err != nil {
		return err
	}
	u, err := i.call(fnGetUndefined)
	if err != nil {
		return err
	}
	i.undefined = uint32(u)
	if i.scratch, err = i.Malloc(64); err != nil {
		return err
	}
	return nil
}

// Stop makes the code running in the instance trap at its next poll (at
// most a million loop iterations away, see addPolling) or its next call
// to QuickJS's interrupt handler, and every later call fail: the hard stop
// behind the interrupt handler, for code that does not reach it (a long
// built-in). The instance is unusable afterwards. Any goroutine may call
// Stop at any time.
func (i *Instance) Stop() { i.stopped.Store(true) }

// errStopped is the panic that unwinds a stopped instance.
var errStopped = errors.New("quickjs: instance stopped")

// SetSilent makes the host functions whose id's bit is set in mask (ids
// under 32) return undefined without calling Hooks.Call, until it is
// called again: the wasm tests the bit before it leaves for Go. Snapshots
// save and restore the mask with the other globals. Call it between calls
// or from a host function, on the goroutine that drives the instance.
func (i *Instance) SetSilent(mask uint32) { i.silent.Set(uint64(mask)) }

// SetMemoryLimit caps the linear memory at n bytes (rounded down to whole
// pages, never below the current size). Safe to call from any goroutine.
func (i *Instance) SetMemoryLimit(n int64) { i.limitBytes.Store(n) }

// MemorySize returns the current linear memory size in bytes.
func (i *Instance) MemorySize() int64 {
	if i.closed {
		return 0
	}
	return int64(i.mem.Size())
}

// Refused reports whether a heap growth was refused (the memory cap was
// hit) since the last ResetRefused.
func (i *Instance) Refused() bool { return i.refused }

// ResetRefused clears the Refused flag.
func (i *Instance) ResetRefused() { i.refused = false }

// Broken returns the error that made the instance unusable, or nil.
func (i *Instance) Broken() error { return i.broken }

// Stderr returns what the C side printed to stdout/stderr (bounded).
func (i *Instance) Stderr() string { return i.stderr.String() }

// compacter is a linear memory that can give back pages that hold what
// the memory would read without them (mmapMemory).
type compacter interface {
	compact(cur, deadLo, deadHi uint32) int64
}

// Compact releases what an idle instance holds and can get back on
// demand: its call engines (each a Go-allocated stack of 10 KiB or more,
// grown by the deepest call and never shrunk; the next call binds a fresh
// one) and the written pages of its memory whose bytes equal the
// snapshot's or zero (see mmapMemory.compact). It returns the bytes of
// memory released. Call it between calls, on the goroutine that drives
// the instance or while that goroutine is excluded.
func (i *Instance) Compact() int64 {
	if i.closed || i.depth != 0 {
		return 0
	}
	clear(i.disp)
	i.disp = i.disp[:0]
	if c, ok := i.lm.(compacter); ok {
		lo, hi, _ := i.deadStack()
		return c.compact(i.mem.Size(), lo, hi)
	}
	return 0
}

// Close closes the module and frees its memory. Only the goroutine that
// drives the instance may call it.
func (i *Instance) Close() error {
	if i.closed {
		return nil
	}
	i.closed = true
	if i.broken == nil {
		i.broken = errors.New("quickjs: instance closed")
	}
	return i.mod.Close(context.Background())
}

// call invokes an export. Any error (a trap, an exit, a closed module)
// marks the instance broken: its memory may be inconsistent.
func (i *Instance) call(fn int, args ...uint64) (uint64, error) {
	if i.broken != nil {
		return 0, i.broken
	}
	if i.stopped.Load() {
		i.broken = &CallError{Func: fnNames[fn], Kind: "stopped", Err: errors.New("instance stopped")}
		return 0, i.broken
	}
	d := i.depth
	if d == len(i.disp) {
		f := i.mod.ExportedFunction(dispatchExport)
		if f == nil {
			i.broken = fmt.Errorf("quickjs: export %s missing", dispatchExport)
			return 0, i.broken
		}
		i.disp = append(i.disp, f)
	}
	// The slots are shared by every depth: wazero copies the arguments
	// in when a call starts and the results out when it returns, so a
	// nested call in between does no harm.
	st := i.stack[:]
	st[0] = uint64(fn)
	n := copy(st[1:], args)
	clear(st[1+n:])
	i.depth = d + 1
	err := i.disp[d].CallWithStack(i.ctx, st)
	i.depth = d
	if err != nil {
		i.broken = i.classify(fnNames[fn], err)
		return 0, i.broken
	}
	return st[0], nil
}

// CallError is the error of a failed call into the instance.
type CallError struct {
	Func string
	// Kind is "stopped" (Stop was called: the hard stop), "exit" (the C
	// side called exit or abort), "stack" (the wasm call stack
	// overflowed) or "trap".
	Kind string
	Err  error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("quickjs: %s: %s: %v", e.Func, e.Kind, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

func (i *Instance) classify(fn string, err error) error {
	ce := &CallError{Func: fn, Kind: "trap", Err: err}
	var exit *sys.ExitError
	switch {
	case i.stopped.Load():
		ce.Kind = "stopped"
	case errors.As(err, &exit):
		ce.Kind = "exit"
	case i.exited:
		ce.Kind = "exit"
	case bytes.Contains([]byte(err.Error()), []byte("stack overflow")):
		ce.Kind = "stack"
	}
	return ce
}

// Malloc allocates n bytes in the instance heap. A zero pointer (out of
// memory) is an error.
func (i *Instance) Malloc(n int) (uint32, error) {
	p, err := i.call(fnMalloc, uint64(n))
	if err != nil {
		return 0, err
	}
	if p == 0 {
		return 0, ErrOutOfMemory
	}
	return uint32(p), nil
}

// ErrOutOfMemory is returned when the instance heap cannot satisfy an
// allocation made by the host.
var ErrOutOfMemory = errors.New("quickjs: out of memory")

// Free frees a Malloc'd pointer.
func (i *Instance) Free(p uint32) {
	if p != 0 {
		_, _ = i.call(fnFree, uint64(p))
	}
}

// CString copies s into the heap, NUL-terminated. Free it with Free.
func (i *Instance) CString(s string) (uint32, error) {
	p, err := i.Malloc(len(s) + 1)
	if err != nil {
		return 0, err
	}
	buf, ok := i.mem.Read(p, uint32(len(s)+1))
	if !ok {
		return 0, errors.New("quickjs: heap pointer out of range")
	}
	copy(buf, s)
	buf[len(s)] = 0
	return p, nil
}

// ReadCString reads a NUL-terminated string at p.
func (i *Instance) ReadCString(p uint32) (string, error) {
	size := i.mem.Size()
	if p == 0 || p >= size {
		return "", fmt.Errorf("quickjs: string pointer %#x out of range", p)
	}
	view, _ := i.mem.Read(p, size-p)
	n := bytes.IndexByte(view, 0)
	if n < 0 {
		return "", errors.New("quickjs: unterminated string")
	}
	return string(view[:n]), nil
}

func (i *Instance) readU32(p uint32) uint32 {
	v, _ := i.mem.ReadUint32Le(p)
	return v
}

// NewContext creates a JSContext with every standard intrinsic (QuickJS's
// JS_NewContext: no std/os modules, which live in quickjs-libc).
func (i *Instance) NewContext() (Context, error) {
	c, err := i.call(fnNewContext, uint64(i.rt), 0)
	if err != nil {
		return 0, err
	}
	if c == 0 {
		return 0, ErrOutOfMemory
	}
	i.learnStringTag(Context(c))
	return Context(c), nil
}

// FreeContext frees a JSContext.
func (i *Instance) FreeContext(c Context) error {
	_, err := i.call(fnFreeContext, uint64(c))
	return err
}

// SetMaxStackSize bounds the C stack QuickJS may use, in bytes; deeper
// recursion throws a catchable RangeError instead of overflowing.
func (i *Instance) SetMaxStackSize(n uint32) error {
	_, err := i.call(fnSetMaxStackSize, uint64(i.rt), uint64(n))
	if err == nil {
		i.maxStack = n
	}
	return err
}

// Eval evaluates code as a global script. It returns an owned Value that
// may hold an exception (see Exception).
func (i *Instance) Eval(c Context, code, filename string, flags int) (Value, error) {
	cp, err := i.CString(code)
	if err != nil {
		return 0, err
	}
	defer i.Free(cp)
	fp, err := i.CString(filename)
	if err != nil {
		return 0, err
	}
	defer i.Free(fp)
	v, err := i.call(fnEval, uint64(c), uint64(cp), uint64(len(code)), uint64(fp), 0, uint64(flags))
	if err != nil {
		return 0, err
	}
	if v == 0 {
		return 0, ErrOutOfMemory
	}
	return Value(v), nil
}

// Exception returns the pending exception if v is the exception marker
// (an owned Value), or 0 if v is a normal value. v itself stays owned by
// the caller.
func (i *Instance) Exception(c Context, v Value) (Value, error) {
	e, err := i.call(fnResolveException, uint64(c), uint64(v))
	return Value(e), err
}

// CallFunction calls fn with this = undefined and the given arguments; it
// returns an owned Value that may hold an exception.
func (i *Instance) CallFunction(c Context, fn Value, args ...Value) (Value, error) {
	argv := i.scratch
	if len(args) > 16 {
		// Past the scratch: a buffer of their own (QTS_Call copies the
		// arguments before it calls, so it may go at once).
		p, err := i.Malloc(4 * len(args))
		if err != nil {
			return 0, err
		}
		defer i.Free(p)
		argv = p
	}
	for k, a := range args {
		if !i.mem.WriteUint32Le(argv+uint32(4*k), uint32(a)) {
			return 0, errors.New("quickjs: argv out of range")
		}
	}
	v, err := i.call(fnCall, uint64(c), uint64(fn), uint64(i.undefined), uint64(len(args)), uint64(argv))
	if err != nil {
		return 0, err
	}
	if v == 0 {
		return 0, ErrOutOfMemory
	}
	return Value(v), nil
}

// ExecutePendingJobs runs up to max queued jobs (max < 0: until the queue
// is empty or a job throws). It returns the number of jobs run, or an owned
// exception Value when a job threw (then n is meaningless). c is the
// context used when no job ran (the C side reports no context then).
func (i *Instance) ExecutePendingJobs(c Context, max int) (n int, exc Value, err error) {
	out := i.scratch + 60
	i.mem.WriteUint32Le(out, 0)
	v, err := i.call(fnExecutePendingJob, uint64(i.rt), uint64(uint32(int32(max))), uint64(out))
	if err != nil {
		return 0, 0, err
	}
	if v == 0 {
		return 0, 0, ErrOutOfMemory
	}
	jobCtx := Context(i.readU32(out))
	if jobCtx == 0 {
		jobCtx = c
	}
	t, err := i.Typeof(jobCtx, Value(v))
	if err != nil {
		return 0, 0, err
	}
	if t != "number" {
		return 0, Value(v), nil
	}
	f, err := i.GetFloat64(jobCtx, Value(v))
	i.FreeValue(jobCtx, Value(v))
	return int(f), 0, err
}

// IsJobPending reports whether the job queue is not empty.
func (i *Instance) IsJobPending() (bool, error) {
	v, err := i.call(fnIsJobPending, uint64(i.rt))
	return v != 0, err
}

// FreeValue frees an owned Value.
func (i *Instance) FreeValue(c Context, v Value) {
	if v != 0 {
		_, _ = i.call(fnFreeValue, uint64(c), uint64(v))
	}
}

// NewString returns an owned string Value.
func (i *Instance) NewString(c Context, s string) (Value, error) {
	p, err := i.CString(s)
	if err != nil {
		return 0, err
	}
	defer i.Free(p)
	v, err := i.call(fnNewString, uint64(c), uint64(p))
	if err == nil && v == 0 {
		err = ErrOutOfMemory
	}
	return Value(v), err
}

// NewFloat64 returns an owned number Value.
func (i *Instance) NewFloat64(c Context, f float64) (Value, error) {
	v, err := i.call(fnNewFloat64, uint64(c), math.Float64bits(f))
	if err == nil && v == 0 {
		err = ErrOutOfMemory
	}
	return Value(v), err
}

// GetFloat64 converts a value to a number (NaN if it cannot).
func (i *Instance) GetFloat64(c Context, v Value) (float64, error) {
	r, err := i.call(fnGetFloat64, uint64(c), uint64(v))
	return math.Float64frombits(r), err
}

// GetString converts a value to a string (JS_ToCString).
func (i *Instance) GetString(c Context, v Value) (string, error) {
	p, err := i.call(fnGetString, uint64(c), uint64(v))
	if err != nil {
		return "", err
	}
	if p == 0 {
		return "", errors.New("quickjs: value cannot be converted to a string")
	}
	s, err := i.ReadCString(uint32(p))
	_, _ = i.call(fnFreeCString, uint64(c), p)
	return s, err
}

// Typeof returns the JavaScript typeof of v.
func (i *Instance) Typeof(c Context, v Value) (string, error) {
	p, err := i.call(fnTypeof, uint64(c), uint64(v))
	if err != nil {
		return "", err
	}
	if p == 0 {
		return "", ErrOutOfMemory
	}
	s, err := i.ReadCString(uint32(p))
	i.Free(uint32(p))
	return s, err
}

// NewFunction returns an owned function Value whose calls reach
// Hooks.Call with the given id.
func (i *Instance) NewFunction(c Context, name string, id uint32) (Value, error) {
	np, err := i.CString(name)
	if err != nil {
		return 0, err
	}
	defer i.Free(np)
	v, err := i.call(fnNewFunction, uint64(c), uint64(np), 0, 0, uint64(id))
	if err == nil && v == 0 {
		err = ErrOutOfMemory
	}
	return Value(v), err
}

// GetIndex returns the owned Value obj[idx].
func (i *Instance) GetIndex(c Context, obj Value, idx int) (Value, error) {
	v, err := i.call(fnGetPropNumber, uint64(c), uint64(obj), uint64(idx))
	if err == nil && v == 0 {
		err = ErrOutOfMemory
	}
	return Value(v), err
}

// Arg returns the borrowed JSValueConst* of argument k of a host call.
func (i *Instance) Arg(argv uint32, k int) (Value, error) {
	v, err := i.call(fnArgv, uint64(argv), uint64(k))
	return Value(v), err
}

// Throw returns an owned exception marker that throws e (which stays
// the caller's): what a host function returns to throw.
func (i *Instance) Throw(c Context, e Value) (Value, error) {
	v, err := i.call(fnThrow, uint64(c), uint64(e))
	if err == nil && v == 0 {
		err = ErrOutOfMemory
	}
	return Value(v), err
}

// StringArg returns argument k of a host call, and true, if it is a
// string; false if it is anything else, or if this build's values
// cannot be told apart by their tag (see stringTag). It reads the tag
// of the JSValue in place: no call into the instance but Arg and, for
// a string, GetString.
func (i *Instance) StringArg(c Context, argv uint32, k int) (string, bool, error) {
	tag := i.r.strTag.Load()
	if tag == 0 {
		return "", false, nil
	}
	p, err := i.Arg(argv, k)
	if err != nil {
		return "", false, err
	}
	raw, ok := i.mem.ReadUint64Le(uint32(p))
	if !ok || uint32(raw>>32) != tag {
		return "", false, nil
	}
	s, err := i.GetString(c, p)
	return s, err == nil, err
}

// learnStringTag sets the Runtime's strTag, once, from a string and a
// number made in context c: with NaN boxing (wasm32), a JSValue is 8
// bytes whose high 32 bits are the tag for everything but a float64,
// whose encoding avoids those tags. A build that does not look like
// that (the string's high half zero, or equal to the number's) leaves
// it 0: StringArg then answers false, and callers take their general
// path.
func (i *Instance) learnStringTag(c Context) {
	i.r.tagOnce.Do(func() {
		s, err := i.NewString(c, "x")
		if err != nil {
			return
		}
		defer i.FreeValue(c, s)
		f, err := i.NewFloat64(c, 1)
		if err != nil {
			return
		}
		defer i.FreeValue(c, f)
		rs, ok1 := i.mem.ReadUint64Le(uint32(s))
		rf, ok2 := i.mem.ReadUint64Le(uint32(f))
		if ok1 && ok2 && rs>>32 != 0 && rs>>32 != rf>>32 {
			i.r.strTag.Store(uint32(rs >> 32))
		}
	})
}

// Undefined returns a borrowed pointer to undefined (never free it).
func (i *Instance) Undefined() Value { return Value(i.undefined) }
