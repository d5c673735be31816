package gojaengine

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/goja"
	parser "github.com/codemode/codemode/runtime/internal/jsparse"
	"github.com/codemode/codemode/tools/errs"
)

//go:embed glue.js
var glue string

//go:embed head.js
var glueHead string

var (
	preludeOnce sync.Once
	preludePrg  *goja.Program
	preludeErr  error
)

// compiledPrelude compiles the sandbox prelude once; every runtime runs
// the same immutable Program.
func compiledPrelude() (*goja.Program, error) {
	preludeOnce.Do(func() {
		preludePrg, preludeErr = goja.Compile(engine.PreludeName, engine.PreludeWithHead(glueHead, glue), true)
	})
	return preludePrg, preludeErr
}

// lazyNames are the prelude's globals (lazyGlobals in common.js) that a
// goja runtime builds only when a program first touches them: withheld
// functions and timers, which most programs never name, cost every runtime
// a function object each otherwise. They are part of the global object's
// template (goja.LazyGlobals), so typeof, `in`, enumeration and computed
// reads see them as if they were defined at setup.
var lazyNames = []string{
	"require", "importScripts", "fetch", "XMLHttpRequest", "WebSocket", "setImmediate", "clearImmediate", // globals.js
	"setTimeout", "setInterval", "clearTimeout", "clearInterval", // timers.js
	"queueMicrotask", // globals.js
	"console",        // console.js
}

// The global tools is in the template too, read-only and non-configurable
// (as tools.js defines it), its value the one makeTools made: a global
// added at setup gave the global object its own copy of the template's
// list of names (~1.4 KB) in every runtime. And eval is the checking eval
// (checkingEval), made when first touched, in the built-in's place.
var lazyGlobals = goja.NewLazyGlobalsReplacing(lazyNames, []string{"tools"}, []string{"eval"})

// lazyBuild is a lazy global's builder, as the prelude registered it
// (made callable when a program first touches the global: most never do).
type lazyBuild struct {
	name  string
	build goja.Value
}

// buildGlobal builds a lazy global on its first touch: its builder's
// value, hidden as the prelude hides what it defines.
func (v *vm) buildGlobal(name string) goja.Value {
	if name == "eval" {
		return v.checkingEval()
	}
	if name == "tools" {
		if v.tools == nil {
			return nil // not made yet: tools.js defines it as it would any global
		}
		return v.tools.obj
	}
	for _, l := range v.lazy {
		if l.name != name {
			continue
		}
		build, ok := goja.AssertFunction(l.build)
		if !ok {
			panic(v.rt.NewTypeError("lazy global " + name + ": the builder is not a function"))
		}
		val, err := build(goja.Undefined(), v.rt.ToValue(name))
		if err != nil {
			panic(err) // an interrupt, or the builder's exception: the touching code's
		}
		// What the prelude's hide does on goja (hostHide): a function's
		// source shows as native code.
		if o, ok := val.(*goja.Object); ok && isFunction(o) {
			o.SetSourceHidden()
		}
		return val
	}
	return nil
}

// hostLazy is the native behind the glue's hostLazy(names, build):
// it takes the names (comma-separated) if every one is in lazyNames. (The functions are
// made callable from Go only when a global is built: a goja.Callable
// costs two allocations, and most runtimes build none.)
func (v *vm) hostLazy(c goja.FunctionCall) goja.Value {
	names, ok := c.Argument(0).(goja.String)
	build := c.Argument(1)
	if !ok || !isFunction(build) || !namesIn(names.String(), lazyNames) {
		return v.rt.ToValue(false)
	}
	if v.lazy == nil {
		v.lazy = make([]lazyBuild, 0, len(lazyNames))
	}
	for name := range strings.SplitSeq(names.String(), ",") {
		v.lazy = append(v.lazy, lazyBuild{name, build})
	}
	return v.rt.ToValue(true)
}

// lazyArrayNames are the Array.prototype methods the prelude replaces
// (sizes.js's checks, the glue's guards), which a goja runtime makes only
// when something first touches them: as for the lazy globals, a realm
// built per call paid for each at setup, the built-in and its
// replacement, and most programs call none of them. Symbol.iterator is
// the guard of values (goja.LazyArrayProtoIterator).
var lazyArrayNames = []string{
	"map", "sort", "toReversed", "keys", "values", "entries", "toSpliced", "with", // the glue's guards
	"indexOf", "lastIndexOf", "includes", // the glue's walkers
	"toSorted", "fill", // sizes.js's checks (and sort)
}

var lazyArrayProto = goja.NewLazyArrayProto(append(lazyArrayNames[:len(lazyArrayNames):len(lazyArrayNames)], goja.LazyArrayProtoIterator)...)

// arrayBuild is a builder the prelude registered for an Array.prototype
// method (hostLazyArray): made callable on first use.
type arrayBuild struct {
	names string // comma-separated
	build goja.Value
	fn    goja.Callable
}

// hostLazyArray is the native behind the glue's hostLazyArray(names,
// build): it takes the names (comma-separated) if every one is in
// lazyArrayNames. Builders registered for one name apply in order
// (sizes.js's sort check, then the glue's guard in front of it).
func (v *vm) hostLazyArray(c goja.FunctionCall) goja.Value {
	names, ok := c.Argument(0).(goja.String)
	build := c.Argument(1)
	if !ok || !isFunction(build) || !namesIn(names.String(), lazyArrayNames) {
		return v.rt.ToValue(false)
	}
	v.arrayLazy = append(v.arrayLazy, arrayBuild{names: names.String(), build: build})
	return v.rt.ToValue(true)
}

// buildArrayMethod makes an Array.prototype method on its first touch:
// the builtin through each builder registered for the name, in order.
// Symbol.iterator and values are one guard, which goja's fast paths take
// as the built-in iteration (SetArrayValuesAlias).
func (v *vm) buildArrayMethod(name string, builtin goja.Value) goja.Value {
	if name == goja.LazyArrayProtoIterator {
		name = "values"
	}
	if name == "values" && v.valuesGuard != nil {
		return v.valuesGuard
	}
	val := builtin
	var key goja.Value
	for i := range v.arrayLazy {
		b := &v.arrayLazy[i]
		if !b.has(name) {
			continue
		}
		if b.fn == nil {
			fn, ok := goja.AssertFunction(b.build)
			if !ok { // hostLazyArray checked
				panic(v.rt.NewTypeError("Array.prototype." + name + ": the builder is not a function"))
			}
			b.fn = fn
		}
		if key == nil {
			key = v.rt.ToValue(name)
		}
		out, err := b.fn(goja.Undefined(), key, val)
		if err != nil {
			panic(err) // an interrupt, or the builder's exception: the touching code's
		}
		val = out
	}
	if name == "values" {
		v.valuesGuard = val
		if o, ok := val.(*goja.Object); ok && val != builtin {
			v.rt.SetArrayValuesAlias(o)
		}
	}
	return val
}

// has reports whether name is one of the builder's names.
func (b *arrayBuild) has(name string) bool {
	for n := range strings.SplitSeq(b.names, ",") {
		if n == name {
			return true
		}
	}
	return false
}

// namesIn reports whether names, comma-separated, are one or more of
// known (the prelude passes names as one string: an array literal costs a
// goja runtime two objects).
func namesIn(names string, known []string) bool {
	if names == "" {
		return false
	}
	for n := range strings.SplitSeq(names, ",") {
		if !slices.Contains(known, n) {
			return false
		}
	}
	return true
}

// isFunction is typeof f === "function", without making a goja.Callable.
func isFunction(f goja.Value) bool {
	o, ok := f.(*goja.Object)
	return ok && o.ClassName() == "Function"
}

var (
	errSourceMapFiles = errors.New("source maps are only read from data: URLs")
	errNoReset        = errors.New("goja engine: a runtime cannot be reset")
	errInterrupted    = errors.New("goja engine: interrupted")
)

// denySourceMapFiles keeps a `//# sourceMappingURL=/path` comment (in a
// script or an eval'd string) from making goja read a file: /dev/zero would
// hang it and exhaust memory. Inline data: maps never reach a loader.
func denySourceMapFiles(string) ([]byte, error) { return nil, errSourceMapFiles }

// vm is one goja runtime with the prelude installed. It implements
// engine.VM.
type vm struct {
	d  *driver
	rt *goja.Runtime
	// The prelude's entry points, and each made callable from Go on
	// first use (entry): a goja.Callable costs two allocations, and a
	// run uses one or two of them.
	// After them, the glue's: webScript(names) (the web globals, web.go),
	// refuse and typedSource (checkSizes).
	entries [engine.EntryGlue + 3]goja.Value
	fns     [engine.EntryGlue + 3]goja.Callable
	cfg     engine.VMConfig

	// The web globals built in this realm (engine.WebGlobals; web.go).
	webSet uint32

	// The run in progress, between Begin and End.
	run        *engine.Run
	w          *watched      // the memory guard's record of it
	pending    []resolvers   // nested calls' promises, by call id - 1 (Run.Call numbers them 1, 2, …)
	promise    *goja.Promise // the program's, until its outcome is reported
	names      goja.Value    // the run's tool names as a JS array, made on demand
	tools      *toolsObject  // the global tools
	bufBytes   float64       // bytes of buffers the run allocated (see reserve)
	timers     map[int64]int // the run's timers: the program's id → the call id
	polyfilled uint32        // the es.js features installed (engine.Polyfills)
	abrupt     bool          // an uncatchable error unwound the VM: it cannot run again
	retained   int64         // persistent: the heap its runs left it holding (guard.growth), never less
	window     window        // persistent: runs since retained was last measured

	// globals is what Globals listed last, when the global object's keys
	// were at version globalsVer (goja's GlobalKeysVersion); hasGlobals
	// says whether they are worth anything.
	globals    []string
	globalsVer uint32
	hasGlobals bool
	frames     []goja.StackFrame // scratch for callLine

	lazy []lazyBuild // the lazy globals' builders (buildGlobal)

	natives nativeTable // the prelude's natives, made on first read

	arrayLazy   []arrayBuild // the Array.prototype methods' builders (buildArrayMethod)
	valuesGuard goja.Value   // Array.prototype.values and [Symbol.iterator], once made
	refusal     goja.Value   // the run's rejected promise for calls past its limit (Run.Refused)
}

type resolvers struct{ resolve, reject func(any) error }

var _ engine.VM = (*vm)(nil)

// newVM makes a runtime with the sandbox surface installed.
func (d *driver) newVM() (*vm, error) {
	prg, err := compiledPrelude()
	if err != nil {
		return nil, err
	}
	rt := goja.New()
	rt.SetTimeZone(d.loc)
	if d.opts.YieldInterval > 0 {
		rt.SetYieldInterval(d.opts.YieldInterval)
	}
	rt.SetParserOptions(parser.WithSourceMapLoader(denySourceMapFiles))
	v := &vm{d: d, rt: rt}
	if err := rt.SetLazyGlobals(lazyGlobals, v.buildGlobal); err != nil {
		return nil, err
	}
	if err := rt.SetLazyArrayProto(lazyArrayProto, v.buildArrayMethod); err != nil {
		return nil, err
	}

	setup, err := rt.RunProgram(prg)
	if err != nil {
		return nil, fmt.Errorf("goja engine: running the prelude: %w", err)
	}
	fn, ok := goja.AssertFunction(setup)
	if !ok {
		return nil, errors.New("goja engine: the prelude is not a function")
	}
	// The natives: glue.js's list, each made when the prelude first reads
	// it (nativeTable): the glue reads those only lazily made code calls
	// (the timers', the web globals', console's, typed arrays') when common.js's
	// lateLoad first runs (glueLate), and most runs never do.
	v.natives.v = v
	natives := rt.NewDynamicArray(&v.natives)
	entries, err := fn(goja.Undefined(), natives)
	if err != nil {
		return nil, fmt.Errorf("goja engine: running the prelude: %w", err)
	}
	eo := entries.ToObject(rt)
	for k := range v.entries {
		if v.entries[k] = eo.Get(strconv.Itoa(k)); !isFunction(v.entries[k]) {
			return nil, fmt.Errorf("goja engine: prelude entry %d is not a function", k)
		}
	}
	if err := v.checkSizes(); err != nil {
		return nil, err
	}
	if err := v.gateEval(); err != nil {
		return nil, fmt.Errorf("goja engine: gating eval: %w", err)
	}
	// What every program's first async function makes besides its own
	// objects (the async function prototype, the promise prototype), made
	// ahead, in the pool, not on the request path. (It ran a throwaway
	// async function, whose own objects cost every runtime 34 allocations.)
	rt.WarmAsync()
	return v, nil
}

// entry returns the prelude's entry point k as a goja.Callable.
func (v *vm) entry(k int) goja.Callable {
	if v.fns[k] == nil {
		f, ok := goja.AssertFunction(v.entries[k])
		if !ok { // newVM checked
			panic(fmt.Sprintf("goja engine: prelude entry %d is not a function", k))
		}
		v.fns[k] = f
	}
	return v.fns[k]
}

// refusalOf is the native behind a binding's first step (the glue's
// hostRefusal), before the binding reads its arguments: past the run's
// limit (Run.Refused) the run's rejected promise, else undefined.
func (v *vm) refusalOf(c goja.FunctionCall) goja.Value {
	r := v.run
	if r == nil {
		return goja.Undefined()
	}
	if e := r.Refused(c.Argument(0).String()); e != nil {
		return v.refused(e)
	}
	return goja.Undefined()
}

// refused is the promise a call past the limit returns: one promise,
// rejected with one Error, made at the first refused call, serves every
// refused call of the run; nothing is made per call.
func (v *vm) refused(e *errs.Error) goja.Value {
	if v.refusal == nil {
		obj, err := v.entry(engine.EntryBindingError)(goja.Undefined(), v.rt.ToValue(string(e.Code)), v.rt.ToValue(e.Error()), goja.Undefined())
		if err != nil {
			panic(err)
		}
		p, _, reject := v.rt.NewPromise()
		if err := reject(obj); err != nil {
			panic(err)
		}
		v.refusal = v.rt.ToValue(p)
	}
	return v.refusal
}

// call is the native behind every binding: it starts the nested call and
// returns the promise Settle will settle, or undefined when no run is in
// progress (a binding kept by a program and called after its run). The
// binding asked refusalOf first; a call is refused here only when its
// arguments' serialisation made calls (a toJSON that calls a tool) that
// reached the limit.
func (v *vm) call(c goja.FunctionCall) goja.Value {
	r := v.run
	if r == nil {
		return goja.Undefined()
	}
	name := c.Argument(0).String()
	if e := r.Refused(name); e != nil {
		return v.refused(e)
	}
	p, resolve, reject := v.rt.NewPromise()
	args := c.Argument(1).String()
	if id := r.Call(name, json.RawMessage(args), v.callLine(r.Job())); id == len(v.pending)+1 {
		v.pending = append(v.pending, resolvers{resolve, reject})
	} else {
		panic(fmt.Sprintf("goja engine: call id %d out of order (%d pending)", id, len(v.pending)))
	}
	return v.rt.ToValue(p)
}

// timer is the native behind timers.js's hostTimer: a timer of the run
// whose settlement calls fire.
func (v *vm) timer(c goja.FunctionCall) goja.Value {
	r := v.run
	if r == nil {
		return goja.Undefined()
	}
	id := c.Argument(0).ToInteger()
	if c.Argument(3).ToBoolean() {
		if _, ok := v.timers[id]; !ok {
			return v.rt.ToValue(0) // cleared meanwhile
		}
	}
	fire, ok := goja.AssertFunction(c.Argument(2))
	if !ok {
		panic(v.rt.NewTypeError("timer: fire is not a function"))
	}
	h := r.Timer(c.Argument(1).ToFloat())
	if h < 0 {
		return v.rt.ToValue(-1)
	}
	if h != len(v.pending)+1 {
		panic(fmt.Sprintf("goja engine: call id %d out of order (%d pending)", h, len(v.pending)))
	}
	v.pending = append(v.pending, resolvers{resolve: func(any) error {
		_, err := fire(goja.Undefined())
		return err
	}})
	if v.timers == nil {
		v.timers = map[int64]int{}
	}
	v.timers[id] = h
	return v.rt.ToValue(h)
}

// enterJS marks the run as executing JavaScript (the guard's blame) and
// starts the runtime's yield interval afresh: time spent waiting before it
// is not running time.
func (v *vm) enterJS() {
	v.rt.ResetYieldClock()
	v.w.enterJS()
}

// Configure implements engine.VM.
func (v *vm) Configure(c engine.VMConfig) error {
	v.cfg = c
	v.rt.SetMaxCallStackSize(c.MaxStackDepth)
	return nil
}

// Begin implements engine.VM.
func (v *vm) Begin(r *engine.Run) error {
	v.run = r
	v.names = nil
	v.bufBytes = 0
	if v.tools != nil {
		clear(v.tools.got) // get's answers depend on the run's tools
	}
	v.w = v.d.guard.add(r, v.cfg.MemoryLimit, v.retained, v.rt.RequestSafepoint)
	if v.cfg.MemoryLimit > 0 {
		// A built-in about to allocate a big piece asks the guard first
		// (guard.go, allocate).
		v.rt.SetAllocationCheck(allocMin(v.cfg.MemoryLimit), v.w.allocate)
	}
	// No call of the prelude's begin: the natives behind hostTools and
	// reserve read the run from v, and the tool names reach JavaScript
	// only if the program asks for them.
	return nil
}

// Eval implements engine.VM. The ECMAScript library functions goja lacks
// (the prelude's es.js) are installed first, the first time a script
// names them.
func (v *vm) Eval(script, name string) error {
	prg, err := v.d.compile(name, script)
	if err != nil {
		return err
	}
	v.d.polyOnce.Do(func() {
		// Once per engine, in a realm no program has run in yet.
		needs, err := v.entry(engine.EntryPolyfill)(goja.Undefined(), v.rt.ToValue(engine.PolyfillNeeds))
		if err == nil {
			v.d.polySkip = engine.PolyfillSkip(needs.String())
		}
	})
	if names, set := engine.Polyfills(script, v.polyfilled|v.d.polySkip); names != "" {
		v.polyfilled = set
		v.enterJS()
		_, err := v.entry(engine.EntryPolyfill)(goja.Undefined(), v.rt.ToValue(names))
		v.w.leaveJS()
		if err != nil {
			return v.vmError(err)
		}
	}
	if err := v.webGlobals(script); err != nil {
		return err
	}
	v.enterJS()
	val, err := v.rt.RunProgram(prg)
	v.w.leaveJS()
	if err != nil {
		return v.vmError(err)
	}
	if o, ok := val.(*goja.Object); ok {
		if p, ok := o.Export().(*goja.Promise); ok {
			v.promise = p
			return v.report()
		}
	}
	return v.done(true, val)
}

// RunJobs implements engine.VM: goja runs promise jobs whenever Go's
// call into JavaScript returns, so this only reports a settled program.
func (v *vm) RunJobs() error { return v.report() }

// report reports the program's outcome once its promise has settled.
func (v *vm) report() error {
	p := v.promise
	if p == nil {
		return nil
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		v.promise = nil
		return v.done(true, p.Result())
	case goja.PromiseStateRejected:
		v.promise = nil
		return v.done(false, p.Result())
	}
	return nil
}

// done hands the program's outcome, encoded by the prelude, to the run.
func (v *vm) done(ok bool, val goja.Value) error {
	if val == nil {
		val = goja.Undefined()
	}
	if ok {
		if s, fast := primitiveOutcome(val); fast {
			v.run.Done(s)
			return nil
		}
	}
	v.enterJS()
	s, err := v.entry(engine.EntryOutcome)(goja.Undefined(), v.rt.ToValue(ok), val)
	v.w.leaveJS()
	if err != nil {
		return v.vmError(err)
	}
	v.run.Done(s.String())
	return nil
}

// primitiveOutcome encodes a returned undefined, null, boolean or number
// as the prelude's outcome does ("u", or "v" and JSON.stringify's text),
// without calling into JavaScript: JSON.stringify reads no toJSON of a
// primitive, and goja has no result replacer (wazero's glue does). false
// for anything else (strings included: JSON's escaping of lone surrogates
// is the prelude's).
func primitiveOutcome(val goja.Value) (string, bool) {
	switch {
	case goja.IsUndefined(val):
		return "u", true
	case goja.IsNull(val):
		return "vnull", true
	}
	if _, obj := val.(*goja.Object); obj {
		return "", false // a Number or Boolean object may have a toJSON
	}
	switch x := val.Export().(type) {
	case bool:
		if x {
			return "vtrue", true
		}
		return "vfalse", true
	case int64:
		return "v" + strconv.FormatInt(x, 10), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "vnull", true
		}
		return "v" + val.String(), true // Number::toString, as JSON.stringify
	}
	return "", false
}

// Settle implements engine.VM. Results are decoded straight into goja
// values (see jsonvalue.go); goja runs the promise jobs as each promise
// settles, so this is where the program continues after an await.
func (v *vm) Settle(batch []engine.Settlement) error {
	for _, s := range batch {
		if s.ID < 1 || s.ID > len(v.pending) || v.pending[s.ID-1].resolve == nil {
			continue
		}
		rv := v.pending[s.ID-1]
		v.pending[s.ID-1] = resolvers{}
		var err error
		v.enterJS()
		switch {
		case s.Err != nil:
			err = v.reject(rv, s.Err)
		case len(s.Value) == 0:
			err = rv.resolve(goja.Undefined())
		default:
			val, derr := decodeJSON(v.rt, string(s.Value))
			if derr != nil {
				err = v.reject(rv, engine.InvalidResult(s.Name, derr))
			} else {
				err = rv.resolve(val)
			}
		}
		v.w.leaveJS()
		if err != nil {
			return v.vmError(err)
		}
	}
	return nil
}

// reject rejects a binding's promise with the prelude's bindingError.
func (v *vm) reject(rv resolvers, e *errs.Error) error {
	info := goja.Undefined()
	if len(e.Info) > 0 {
		if b, err := json.Marshal(e.Info); err == nil {
			if iv, err := decodeJSON(v.rt, string(b)); err == nil {
				info = iv
			}
		}
	}
	obj, err := v.entry(engine.EntryBindingError)(goja.Undefined(), v.rt.ToValue(string(e.Code)), v.rt.ToValue(e.Error()), info)
	if err != nil {
		return err
	}
	return rv.reject(obj)
}

// Interrupt implements engine.VM.
func (v *vm) Interrupt() { v.rt.Interrupt(errInterrupted) }

// HardStop implements engine.VM: goja cannot stop a built-in, so the
// engine abandons the VM instead.
func (v *vm) HardStop() {}

// End implements engine.VM. A VM unwound by an uncatchable error, or
// killed by the memory guard (whose memory its globals may hold), does not
// run again; nor does a persistent one whose runs left it holding its
// whole memory budget (guard.growth measures what each run added).
func (v *vm) End(stopped bool) bool {
	v.rt.ClearInterrupt() // a kill that raced with the end of the run
	memKilled := false
	if v.w != nil {
		if v.cfg.Persistent && !stopped && !v.abrupt && !v.w.killed.Load() {
			v.retained += v.d.guard.growth(v.w, &v.window)
		}
		memKilled = v.d.guard.remove(v.w)
	}
	v.rt.SetAllocationCheck(0, nil)
	v.run, v.w, v.promise, v.names, v.refusal = nil, nil, nil, nil, nil
	clear(v.pending)
	v.pending = v.pending[:0]
	clear(v.timers)
	full := v.cfg.Persistent && v.retained >= v.cfg.MemoryLimit
	return !v.abrupt && !memKilled && !full
}

// Retained implements engine.VM: for a persistent runtime, the sum of what
// its runs were measured to leave on the heap (an estimate, see
// guard.growth); 0 for a per-call one, whose memory goes with its run.
func (v *vm) Retained() int64 { return v.retained }

// Globals implements engine.VM: the list the prelude's globals() makes,
// read from Go, which costs half as much (a goja realm has no enumerable
// globals of its own, so every enumerable one is a program's).
// Listing them builds the lazy globals not built yet (buildGlobal): that
// cannot throw outside a run, but a panic would reach the caller's
// goroutine, so it becomes an error.
//
// Listing them after every run of a persistent environment cost ~5% of a
// `return 1 + 1` over stdio, and most runs add no global: when the global
// object's keys have not changed since the last listing (goja's
// GlobalKeysVersion, a codemode patch), the last list is returned again.
func (v *vm) Globals() (names []string, err error) {
	ver, versioned := v.rt.GlobalKeysVersion()
	if versioned && v.hasGlobals && ver == v.globalsVer {
		return slices.Clone(v.globals), nil
	}
	defer func() {
		if r := recover(); r != nil {
			names, err = nil, fmt.Errorf("goja engine: listing the globals: %v", r)
		}
	}()
	names = v.rt.GlobalObject().Keys()
	// Keys can materialise lazy globals, which changes no key but may
	// count: take the version after it.
	v.globals, v.hasGlobals = slices.Clone(names), versioned
	v.globalsVer, _ = v.rt.GlobalKeysVersion()
	return names, nil
}

// Fits implements engine.VM: goja's memory is the process heap.
func (v *vm) Fits(int64) bool { return true }

// Reusable implements engine.VM: a goja realm cannot be made pristine
// again cheaply, so a released runtime is dropped.
func (v *vm) Reusable() bool { return false }

// Close implements engine.VM; the runtime is garbage once dropped.
func (v *vm) Close() error { return nil }

// vmError maps an error out of goja to a Thrown or a Fault.
func (v *vm) vmError(err error) error {
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	var ex *goja.Exception
	switch {
	case errors.As(err, &ie):
		// goja leaves a VM whose run was aborted by an uncatchable error
		// with a stale call stack: later runs never execute promise jobs.
		v.abrupt = true
		return &engine.Fault{Kind: engine.FaultInterrupted, Err: err}
	case errors.As(err, &so):
		v.abrupt = true
		return &engine.Fault{Kind: engine.FaultStackOverflow, Stack: so.String(), Err: err}
	case errors.As(err, &ex):
		return v.describe(ex.Value())
	}
	return err
}

// describe turns an exception value into a Thrown, through the prelude.
func (v *vm) describe(exc goja.Value) error {
	s, err := v.entry(engine.EntryDescribe)(goja.Undefined(), exc)
	if err != nil {
		var ex *goja.Exception
		if errors.As(err, &ex) {
			return &engine.Thrown{Message: exc.String()}
		}
		return v.vmError(err)
	}
	t, err := engine.ParseThrown(s.String())
	if err != nil {
		return err
	}
	return t
}

// syntaxError maps a parse or compile error of a script to the Thrown of
// a SyntaxError at its position in the script.
func syntaxError(err error) error {
	t := &engine.Thrown{Name: "SyntaxError", IsError: true, Message: err.Error()}
	var list parser.ErrorList
	var ce *goja.CompilerSyntaxError
	switch {
	case errors.As(err, &list) && len(list) > 0:
		t.Line, t.Column, t.Message = list[0].Position.Line, list[0].Position.Column, list[0].Message
	case errors.As(err, &ce):
		if ce.File != nil {
			p := ce.File.Position(ce.Offset)
			t.Line, t.Column = p.Line, p.Column
		}
		t.Message = ce.Message
	}
	if t.Line < 1 {
		t.Line = 1
	}
	return t
}

// reserve checks an allocation a built-in is about to make against the
// run's budget and returns why it is refused, or "". Buffers (ArrayBuffer,
// typed arrays) also count cumulatively over the run, up to twice the
// budget.
func (v *vm) reserve(what string, bytes float64, buffer bool) string {
	if v.cfg.MemoryLimit <= 0 {
		return "" // the prelude, before any budget is set
	}
	// A persistent runtime's earlier programs already hold part of it.
	limit := float64(max(v.cfg.MemoryLimit-v.retained, 0))
	if bytes > limit {
		msg := fmt.Sprintf("%s would need %.0f MiB, over the program's memory budget of %.0f MiB", what, bytes/(1<<20), limit/(1<<20))
		if v.retained > 0 {
			msg += fmt.Sprintf(" (what is left of %d MiB: its environment already holds about %d MiB from earlier programs)", v.cfg.MemoryLimit>>20, v.retained>>20)
		}
		return msg
	}
	if buffer && v.run != nil && bytes > 0 {
		v.bufBytes += bytes
		if v.bufBytes > 2*limit {
			return fmt.Sprintf("%s: the program's buffers total %.0f MiB, over twice its memory budget of %.0f MiB", what, v.bufBytes/(1<<20), limit/(1<<20))
		}
	}
	return ""
}

// toolsObject is the global `tools` on goja: a native object that calls
// the prelude's traps (tools.js), so the semantics stay the prelude's, and
// remembers get's answers for the run.
type toolsObject struct {
	v         *vm
	obj       *goja.Object     // the global tools
	makeTraps goja.Value       // tools.js's toolsTraps
	fns       [3]goja.Callable // its get, has, ownKeys: made on first use
	got       map[string]goja.Value
}

// toolsTraps are the traps toolsObject calls, by index in fns.
var toolsTraps = [3]string{"get", "has", "ownKeys"}

func (v *vm) makeTools(makeTraps goja.Value) goja.Value {
	if !isFunction(makeTraps) {
		panic(v.rt.NewTypeError("tools: the traps' maker is not a function"))
	}
	// (The traps are made, and get's answers kept, only once a program
	// uses tools: the runtime is built for every per-call program, and
	// most functions of tools.js serve only the traps.)
	t := &toolsObject{v: v, makeTraps: makeTraps}
	v.tools = t
	o := v.rt.NewDynamicObject(t)
	o.SetPrototype(nil) // as tools.js's getPrototypeOf trap answers
	t.obj = o
	return o
}

// trap returns trap k as a goja.Callable, making the traps on first use.
func (t *toolsObject) trap(k int) goja.Callable {
	if t.fns[k] == nil {
		mk, ok := goja.AssertFunction(t.makeTraps)
		if !ok { // makeTools checked
			panic(t.v.rt.NewTypeError("tools: the traps' maker is not a function"))
		}
		traps, err := mk(goja.Undefined())
		if err != nil {
			panic(err) // an interrupt: the touching code's
		}
		o := traps.ToObject(t.v.rt)
		for i, name := range toolsTraps {
			fn, ok := goja.AssertFunction(o.Get(name))
			if !ok {
				panic(t.v.rt.NewTypeError("tools: no " + name + " trap"))
			}
			t.fns[i] = fn
		}
	}
	return t.fns[k]
}

// call calls a trap; an exception (an interrupt) propagates to the
// program as goja propagates a panic of a native object.
func (t *toolsObject) call(f goja.Callable, args ...goja.Value) goja.Value {
	val, err := f(goja.Undefined(), args...)
	if err != nil {
		panic(err)
	}
	return val
}

func (t *toolsObject) Get(key string) goja.Value {
	if val, ok := t.got[key]; ok {
		return val
	}
	val := t.call(t.trap(0), goja.Undefined(), t.v.rt.ToValue(key))
	if val == nil || goja.IsUndefined(val) {
		val = nil
	}
	if objectProtoNames[key] {
		// What get answers follows Object.prototype as it is now (unless
		// the name is a tool's): not kept, as on wazero.
		return val
	}
	if t.got == nil {
		t.got = map[string]goja.Value{}
	} else if len(t.got) >= 1024 { // names a program invented
		clear(t.got)
	}
	t.got[key] = val
	return val
}

// objectProtoNames are the names for which tools.js's get answers
// Object.prototype's member, unless a tool has the name (tools.js's
// objectProtoNames).
var objectProtoNames = map[string]bool{
	"constructor": true, "toString": true, "toLocaleString": true, "valueOf": true,
	"hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true, "__proto__": true,
	"__defineGetter__": true, "__defineSetter__": true, "__lookupGetter__": true, "__lookupSetter__": true,
}

func (t *toolsObject) Has(key string) bool {
	return t.call(t.trap(1), goja.Undefined(), t.v.rt.ToValue(key)).ToBoolean()
}

func (t *toolsObject) Keys() []string {
	list, _ := t.call(t.trap(2)).Export().([]any)
	out := make([]string, 0, len(list))
	for _, k := range list {
		if s, ok := k.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// GetOwn: a tool's binding is an own property (the getOwnPropertyDescriptor
// trap); any other name, though Get answers for it, is not.
func (t *toolsObject) GetOwn(key string) goja.Value {
	if !t.Has(key) {
		return nil
	}
	return t.Get(key)
}

// SetPrototype: the prototype stays null (the setPrototypeOf trap).
func (t *toolsObject) SetPrototype(proto *goja.Object) bool { return proto == nil }

func (t *toolsObject) Set(string, goja.Value) bool { return false }
func (t *toolsObject) Delete(string) bool          { return false }

// callLine is the line of the user's program that is calling a binding now
// (the first frame of the program's below the binding's own and the
// prelude's), or 0 when that code is not the program's (eval, the
// prelude).
func (v *vm) callLine(j *engine.Job) int {
	v.frames = v.rt.CaptureCallStack(4, v.frames[:0])
	for i := range v.frames {
		f := &v.frames[i]
		if n := f.SrcName(); n != j.Name && !strings.HasSuffix(n, ".ts") {
			continue
		}
		if line := f.Position().Line - j.LineOffset; line >= 1 && (j.SourceLines == 0 || line <= j.SourceLines) {
			return line
		}
	}
	return 0
}

// checkSizes installs the size checks goja's built-ins make from inside
// (the goja patch sizecheck.go): the budget is vm.reserve's, a refusal
// the glue's refuse (a RangeError that, uncaught, ends the run as
// MEMORY_LIMIT), and a typed-array constructor given an iterable or an
// array-like reads the glue's snapshot of it (typedSource). No JavaScript
// wrapper stands in front of these built-ins: their length, name,
// receiver and steps are goja's own.
func (v *vm) checkSizes() error {
	rt := v.rt
	// (The glue's guard of Array.prototype.values is goja's fast paths'
	// alias of the built-in from when it is made: buildArrayMethod.)
	throw := func(err error) {
		var ex *goja.Exception
		if errors.As(err, &ex) {
			panic(ex.Value())
		}
		panic(err)
	}
	rt.SetSizeCheck(func(what string, bytes float64, buffer bool) {
		if msg := v.reserve(what, bytes, buffer); msg != "" {
			if _, err := v.entry(engine.EntryGlue+1)(goja.Undefined(), rt.ToValue(msg)); err != nil { // the glue's refuse
				throw(err)
			}
			panic(rt.NewTypeError(msg)) // refuse always throws
		}
	})
	rt.SetTypedArraySource(func(what string, bytesPer int, arg *goja.Object) *goja.Object {
		val, err := v.entry(engine.EntryGlue+2)(goja.Undefined(), arg, rt.ToValue(bytesPer), rt.ToValue(what)) // the glue's typedSource
		if err != nil {
			throw(err)
		}
		return val.ToObject(rt)
	})
	return nil
}

// console makes console's log, info, warn, error and debug: Go functions
// that drop the line unformatted once the run's log budget is spent
// (Run.LogSpent), join plain strings themselves (what format does with
// them: no directive is read unless a first string with a '%' has
// arguments after it), and hand anything else to the prelude's format.
func (v *vm) console(format goja.Callable) goja.Value {
	rt := v.rt
	o := rt.NewObject()
	for _, level := range [...]string{"log", "info", "warn", "error", "debug"} {
		f := rt.NewNativeFunction(func(c goja.FunctionCall) goja.Value {
			r := v.run
			if r == nil || r.LogSpent() {
				return goja.Undefined()
			}
			text, ok := plainLine(c.Arguments)
			if !ok {
				val, err := format(goja.Undefined(), rt.NewArray(argsOf(c.Arguments)...))
				if err != nil {
					panic(err)
				}
				text = val.String()
			}
			r.Log(level, text)
			return goja.Undefined()
		}, level, 0) // a method's name and length, as the prelude's functions had
		_ = o.Set(level, f)
	}
	return o
}

// plainLine is format's line for arguments that are all strings, when no
// directive applies.
func plainLine(args []goja.Value) (string, bool) {
	switch len(args) {
	case 0:
		return "", true
	case 1:
		if s, ok := args[0].(goja.String); ok {
			return s.String(), true
		}
		return "", false
	}
	var b strings.Builder
	for i, a := range args {
		s, ok := a.(goja.String)
		if !ok {
			return "", false
		}
		t := s.String()
		if i == 0 && strings.IndexByte(t, '%') >= 0 {
			return "", false
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String(), true
}

func argsOf(args []goja.Value) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = a
	}
	return out
}
