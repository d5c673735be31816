package wazeroengine

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codemode/codemode/runtime/internal/quickjs"
)

//go:embed prelude.js
var prelude string

// The prelude's entry points, in the order of the array it returns.
const (
	fnBegin = iota
	fnWatch
	fnSettle
	fnDescribe
	fnGlobals
	numPreludeFns
)

// hostFuncID is the id of the one host function (QTS_NewFunction's host
// reference); any other id reaching Hooks.Call is a bug.
const hostFuncID = 1

// vm is one QuickJS instance with one live JSContext that has the prelude
// installed: a warm, ready-to-run environment. A vm is driven by one
// goroutine at a time (the pool's filler, then the env that owns it).
type vm struct {
	inst *quickjs.Instance
	ctx  quickjs.Context
	fns  [numPreludeFns]quickjs.Value // owned, freed with the context
	// programs counts the programs run on this instance (across contexts).
	programs int
	// dirty is set when the instance must not get another context: a run
	// timed out, ran out of memory, or left jobs behind.
	dirty bool

	// run is the program in progress (nil between runs); the host hooks
	// dispatch to it.
	run *run
}

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
func (e *Engine) newVM() (*vm, error) {
	p, first, err := e.pristine()
	if err != nil || first != nil {
		return first, err
	}
	if p != nil {
		inst, err := e.rt.NewInstanceFrom(e.bgCtx, p.snap)
		if err == nil {
			v := &vm{inst: inst, ctx: p.ctx, fns: p.fns}
			inst.Hooks = quickjs.Hooks{Call: v.hostCall, Interrupt: v.interrupt}
			return v, nil
		}
		if !errors.Is(err, quickjs.ErrSnapshotUnsupported) {
			return nil, err
		}
		// This instance's memory fell back to the Go heap: build its
		// context instead.
	}
	return e.buildVM()
}

// buildVM instantiates the module and builds a context in it.
func (e *Engine) buildVM() (*vm, error) {
	inst, err := e.rt.NewInstance(e.bgCtx)
	if err != nil {
		return nil, err
	}
	v := &vm{inst: inst}
	inst.Hooks = quickjs.Hooks{Call: v.hostCall, Interrupt: v.interrupt}
	if err := v.newContext(); err != nil {
		inst.Close()
		return nil, err
	}
	return v, nil
}

// pristine returns the engine's snapshot, nil where snapshots are
// unsupported. The first call takes it, from a vm built for the purpose,
// and returns that vm too (it is as pristine as a restored one).
func (e *Engine) pristine() (*pristine, *vm, error) {
	e.snapMu.Lock()
	defer e.snapMu.Unlock()
	if e.snap != nil || e.noSnap {
		return e.snap, nil, nil
	}
	v, err := e.buildVM()
	if err != nil {
		return nil, nil, err
	}
	snap, err := v.inst.Snapshot()
	if errors.Is(err, quickjs.ErrSnapshotUnsupported) {
		e.noSnap = true
		return nil, v, nil
	}
	if err != nil {
		v.inst.Close()
		return nil, nil, err
	}
	e.snap = &pristine{snap: snap, ctx: v.ctx, fns: v.fns}
	return e.snap, v, nil
}

// reset gives the vm a fresh context: the pristine snapshot restored, or
// the old context freed and a new one built.
func (e *Engine) reset(v *vm) error {
	e.snapMu.Lock()
	p := e.snap
	e.snapMu.Unlock()
	if p != nil {
		err := v.inst.Restore(p.snap)
		if !errors.Is(err, quickjs.ErrSnapshotUnsupported) {
			if err != nil {
				return err
			}
			v.ctx, v.fns = p.ctx, p.fns
			return nil
		}
	}
	if err := v.freeContext(); err != nil {
		return err
	}
	return v.newContext()
}

// newContext creates a JSContext and installs the prelude.
func (v *vm) newContext() error {
	i := v.inst
	c, err := i.NewContext()
	if err != nil {
		return fmt.Errorf("wazero engine: creating a context: %w", err)
	}
	v.ctx = c
	factory, err := i.Eval(c, prelude, "<codemode>", quickjs.EvalGlobal)
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

// callString calls prelude function fn with one string argument and
// returns its result as a string ("" for undefined).
func (v *vm) callString(fn int, arg string) (string, *thrown, error) {
	i := v.inst
	a, err := i.NewString(v.ctx, arg)
	if err != nil {
		return "", nil, err
	}
	defer i.FreeValue(v.ctx, a)
	return v.callValue(fn, a)
}

// callValue calls prelude function fn with one value argument.
func (v *vm) callValue(fn int, arg quickjs.Value) (string, *thrown, error) {
	i := v.inst
	res, err := i.CallFunction(v.ctx, v.fns[fn], arg)
	if err != nil {
		return "", nil, err
	}
	defer i.FreeValue(v.ctx, res)
	exc, err := i.Exception(v.ctx, res)
	if err != nil {
		return "", nil, err
	}
	if exc != 0 {
		t, err := v.describe(exc)
		i.FreeValue(v.ctx, exc)
		return "", t, err
	}
	typ, err := i.Typeof(v.ctx, res)
	if err != nil || typ != "string" {
		return "", nil, err
	}
	s, err := i.GetString(v.ctx, res)
	return s, nil, err
}

// thrown is a JavaScript exception as the prelude's describe reports it.
type thrown struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	Stack   string `json:"stack"`
	Error   bool   `json:"error"`  // an Error instance
	Thrown  string `json:"thrown"` // typeof a thrown primitive
	Code    string `json:"code"`   // set when the error is a tool-call rejection
	Info    any    `json:"info"`   // the rejection's info, if any
	Plain   bool   `json:"plain"`  // our own message, reported as is
}

// describe reads an exception value. When even describing fails (an
// exhausted heap, an interrupt), it falls back to JS_ToCString.
func (v *vm) describe(exc quickjs.Value) (*thrown, error) {
	i := v.inst
	res, err := i.CallFunction(v.ctx, v.fns[fnDescribe], exc)
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
		return &thrown{Message: s}, nil
	}
	s, err := i.GetString(v.ctx, res)
	if err != nil {
		return nil, err
	}
	var t thrown
	if err := json.Unmarshal([]byte(s), &t); err != nil {
		return nil, fmt.Errorf("wazero engine: reading an exception: %w", err)
	}
	return &t, nil
}

// hostCall is the host function: programs reach Go only through it (via
// console and tools, which the prelude built on it).
func (v *vm) hostCall(c quickjs.Context, argc, argv, id uint32) quickjs.Value {
	if id != hostFuncID || argc < 1 || v.run == nil || c != v.ctx {
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
	return v.run.host(s[0], s[1:])
}

// interrupt is QuickJS's interrupt handler.
func (v *vm) interrupt() bool {
	if v.run == nil {
		return false
	}
	return v.run.shouldInterrupt()
}
