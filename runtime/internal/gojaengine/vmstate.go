package gojaengine

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/codemode/codemode/tools/errs"
)

//go:embed prelude.js
var preludeSource string

var (
	preludeOnce sync.Once
	preludePrg  *goja.Program
	warmPrg     *goja.Program
	preludeErr  error

	baselineOnce  sync.Once
	baselineNames map[string]bool
)

// prelude compiles the sandbox surface once; every runtime runs the same
// immutable Program.
func prelude() (*goja.Program, error) {
	preludeOnce.Do(func() {
		preludePrg, preludeErr = goja.Compile("codemode:prelude", preludeSource, true)
		if preludeErr == nil {
			warmPrg, preludeErr = goja.Compile("codemode:warm", warmSource, false)
		}
	})
	return preludePrg, preludeErr
}

// baseline is the set of global names of a runtime no program has touched,
// shared by all runtimes. It is computed once, from a throwaway runtime:
// listing a runtime's globals from Go (Object.GetOwnPropertyNames) builds
// every lazily created built-in, about a third of a runtime's cost, and the
// list is the same for every runtime anyway.
func baseline() map[string]bool {
	baselineOnce.Do(func() {
		names := map[string]bool{"__cm_k": true}
		if st, err := buildVMState(); err == nil {
			for _, k := range st.vm.GlobalObject().GetOwnPropertyNames() {
				names[k] = true
			}
		}
		baselineNames = names
	})
	return baselineNames
}

// warmSource builds, in a pooled runtime, the lazily created built-ins that
// every program needs (async functions, promises and their jobs), so that
// the program does not pay for them on the request path. Nothing else is
// built ahead: most programs never touch most built-ins.
const warmSource = "(async function(){ await null })()"

var errSourceMapFiles = errors.New("source maps are only read from data: URLs")

// denySourceMapFiles keeps a `//# sourceMappingURL=/path` comment (in a
// script or an eval'd string) from making goja read a file: /dev/zero would
// hang it and exhaust memory. Inline data: maps never reach a loader.
func denySourceMapFiles(string) ([]byte, error) { return nil, errSourceMapFiles }

// vmState is one goja runtime with the sandbox surface installed, plus the
// Go side of its bindings. Everything here is touched only by the goroutine
// that currently drives the VM, except memLimit, which is set before the
// first run.
type vmState struct {
	vm        *goja.Runtime
	stringify goja.Callable
	parse     goja.Callable
	errorCtor goja.Value
	baseline  map[string]bool // global names before any program ran; shared, read-only

	memLimit int64
	depth    int  // max call stack size
	cur      *run // the run in progress
	// maxCode and maxNesting bound source text handed to eval and the
	// Function constructors (see gate.go); zero means the defaults.
	maxCode, maxNesting int

	// bindingErrs marks the Error objects that tool bindings rejected with,
	// so an uncaught one keeps its tool code (a program-made Error with a
	// `code` property does not).
	bindingErrs map[*goja.Object]errs.Code
	fns         map[string]goja.Value // binding functions by name, per run
	frames      []goja.StackFrame     // scratch for callLine
}

func newVMState() (*vmState, error) {
	st, err := buildVMState()
	if err != nil {
		return nil, err
	}
	st.baseline = baseline()
	return st, nil
}

// buildVMState makes a runtime with the sandbox surface installed.
func buildVMState() (*vmState, error) {
	prg, err := prelude()
	if err != nil {
		return nil, err
	}
	vm := goja.New()
	vm.SetParserOptions(parser.WithSourceMapLoader(denySourceMapFiles))
	st := &vmState{vm: vm, bindingErrs: map[*goja.Object]errs.Code{}, fns: map[string]goja.Value{}}

	global := vm.GlobalObject()
	jsonObj := global.Get("JSON").ToObject(vm)
	st.stringify, _ = goja.AssertFunction(jsonObj.Get("stringify"))
	st.parse, _ = goja.AssertFunction(jsonObj.Get("parse"))
	st.errorCtor = global.Get("Error")

	setup, err := vm.RunProgram(prg)
	if err != nil {
		return nil, fmt.Errorf("gojaengine: running prelude: %w", err)
	}
	fn, ok := goja.AssertFunction(setup)
	if !ok {
		return nil, errors.New("gojaengine: prelude is not a function")
	}
	emit := vm.ToValue(func(c goja.FunctionCall) goja.Value {
		if r := st.cur; r != nil && r.job.Log != nil {
			r.job.Log(c.Argument(0).String(), r.logText(c.Argument(1).String()))
		}
		return goja.Undefined()
	})
	reserve := vm.ToValue(func(c goja.FunctionCall) goja.Value {
		return vm.ToValue(st.reserve(c.Argument(0).String(), c.Argument(1).ToFloat(), c.Argument(2).ToBoolean()))
	})
	rangeError := global.Get("RangeError")
	join := vm.ToValue(func(c goja.FunctionCall) goja.Value {
		return st.join(c.Argument(0).ToObject(vm), c.Argument(1).ToInteger(), c.Argument(2), rangeError)
	})
	if _, err := fn(goja.Undefined(), global, emit, reserve, join); err != nil {
		return nil, fmt.Errorf("gojaengine: running prelude: %w", err)
	}

	if err := st.gateEval(); err != nil {
		return nil, fmt.Errorf("gojaengine: gating eval: %w", err)
	}

	if _, err := vm.RunProgram(warmPrg); err != nil {
		return nil, fmt.Errorf("gojaengine: warming the runtime: %w", err)
	}

	toolsObj := vm.NewDynamicObject(&toolsObject{st: st})
	if err := global.DefineDataProperty("tools", toolsObj, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE); err != nil {
		return nil, fmt.Errorf("gojaengine: defining tools: %w", err)
	}

	return st, nil
}

// reserve checks an allocation a built-in is about to make against the
// run's budget and returns why it is refused, or "". Buffers (ArrayBuffer,
// typed arrays) also count cumulatively over the run, up to twice the
// budget.
func (st *vmState) reserve(what string, bytes float64, buffer bool) string {
	limit := float64(st.memLimit)
	if st.memLimit <= 0 {
		return "" // the prelude, before any budget is set
	}
	if bytes > limit {
		return fmt.Sprintf("%s would need %.0f MiB, over the program's memory budget of %.0f MiB", what, bytes/(1<<20), limit/(1<<20))
	}
	if r := st.cur; buffer && r != nil && bytes > 0 {
		r.bufBytes += bytes
		if r.bufBytes > 2*limit {
			return fmt.Sprintf("%s: the program's buffers total %.0f MiB, over twice its memory budget of %.0f MiB", what, r.bufBytes/(1<<20), limit/(1<<20))
		}
	}
	return ""
}

// join is Array.prototype.join for the prelude (see prelude.js), under the
// memory budget: it reads each of the n elements of o once, converts each
// once, and refuses with a RangeError, before building anything, a result
// the budget cannot hold. goja's own join writes as it reads, so joining
// 64 copies of an 8 MiB string allocated half a gigabyte inside one
// built-in call, where the heap watchdog cannot interrupt.
func (st *vmState) join(o *goja.Object, n int64, sepV goja.Value, rangeError goja.Value) goja.Value {
	vm := st.vm
	sep, err := st.toString(sepV)
	if err != nil {
		panic(err)
	}
	if n <= 0 {
		return vm.ToValue("")
	}
	refuse := func(units float64) {
		if msg := st.reserve("join()", units*2, false); msg != "" {
			e, err := vm.New(rangeError, vm.ToValue(msg))
			if err != nil {
				panic(vm.NewGoError(err))
			}
			panic(e)
		}
	}
	sepLen := float64(sep.Length())
	refuse(float64(n) * (8 + sepLen)) // the parts themselves, and the separators
	parts := make([]goja.String, n)
	total := sepLen * float64(n-1)
	for i := range n {
		e := o.Get(strconv.FormatInt(i, 10))
		if e == nil || goja.IsUndefined(e) || goja.IsNull(e) {
			continue
		}
		s, err := st.toString(e)
		if err != nil {
			panic(err)
		}
		parts[i] = s
		total += float64(s.Length())
		refuse(total)
	}
	var b goja.StringBuilder
	b.Grow(int(total))
	for i, s := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		if s != nil {
			b.WriteString(s)
		}
	}
	return b.String()
}

// toString is ToString: an object's conversion (program code) runs once.
func (st *vmState) toString(v goja.Value) (goja.String, *goja.Object) {
	if s, ok := v.(goja.String); ok {
		return s, nil
	}
	p := v.ToString() // the primitive; a string, or a number, boolean, …
	if s, ok := p.(goja.String); ok {
		return s, nil
	}
	if _, ok := p.(*goja.Symbol); ok {
		return nil, st.vm.NewTypeError("Cannot convert a Symbol value to a string")
	}
	return st.vm.ToValue(p.String()).(goja.String), nil
}

// globals lists the global names programs added (persistent envs): the
// enumerable own properties of the global object that a fresh runtime
// lacks. Declarations (rewritten into assignments), assignments and var in
// an indirect eval are enumerable; built-ins are not, so only the few names
// a program made are visited (wazero lists the same).
func (st *vmState) globals() []string {
	var out []string
	for _, k := range st.vm.GlobalObject().Keys() {
		if !st.baseline[k] {
			out = append(out, k)
		}
	}
	return out
}

// objectProtoNames resolve to Object.prototype on `tools` unless they are
// real tool names, so String(tools), tools.hasOwnProperty(…) and friends
// behave as on any object.
var objectProtoNames = map[string]bool{
	"constructor": true, "toString": true, "toLocaleString": true, "valueOf": true,
	"hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
	"__proto__": true, "__defineGetter__": true, "__defineSetter__": true,
	"__lookupGetter__": true, "__lookupSetter__": true,
}

// toolsObject is the global `tools`: every string property is a binding.
type toolsObject struct{ st *vmState }

func (t *toolsObject) known(key string) bool {
	if r := t.st.cur; r != nil {
		for _, n := range r.job.Tools {
			if n == key {
				return true
			}
		}
	}
	return false
}

func (t *toolsObject) Get(key string) goja.Value {
	if key == "then" || key == "toJSON" || (objectProtoNames[key] && !t.known(key)) {
		return nil
	}
	if f, ok := t.st.fns[key]; ok {
		return f
	}
	f := t.st.vm.ToValue(t.st.binding(key))
	t.st.fns[key] = f
	return f
}

func (t *toolsObject) Set(string, goja.Value) bool { return false }
func (t *toolsObject) Has(key string) bool         { return t.known(key) }
func (t *toolsObject) Delete(string) bool          { return false }
func (t *toolsObject) Keys() []string {
	if r := t.st.cur; r != nil {
		return append([]string(nil), r.job.Tools...)
	}
	return nil
}

// binding returns the async function for one tool name. It serialises the
// arguments on the VM goroutine (so a program cannot race us), queues the
// call on the run and returns the promise the loop will settle.
func (st *vmState) binding(name string) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		p, resolve, reject := st.vm.NewPromise()
		r := st.cur
		if r == nil { // a binding kept by a program and called after its run
			_ = reject(st.newBindingError(&errs.Error{Code: errs.CodeCancelled, Message: "the program that made this call has ended"}))
			return st.vm.ToValue(p)
		}
		args, terr := st.argsJSON(c.Argument(0))
		if terr != nil {
			_ = reject(st.newBindingError(terr))
			return st.vm.ToValue(p)
		}
		r.enqueue(&pendingCall{name: name, args: args, resolve: resolve, reject: reject, line: st.callLine(r)})
		return st.vm.ToValue(p)
	}
}

func (st *vmState) argsJSON(v goja.Value) (json.RawMessage, *errs.Error) {
	if v == nil || goja.IsUndefined(v) {
		return json.RawMessage("{}"), nil
	}
	out, err := st.stringify(goja.Undefined(), v)
	if err != nil {
		return nil, &errs.Error{Code: errs.CodeInvalidArguments, Message: "tool arguments must be JSON-serialisable: " + jsErrorText(err)}
	}
	if out == nil || goja.IsUndefined(out) {
		return nil, &errs.Error{Code: errs.CodeInvalidArguments, Message: "tool arguments must be JSON-serialisable, got " + v.String()}
	}
	return json.RawMessage(out.String()), nil
}

// newBindingError builds the Error a binding rejects with: message, code,
// and info when the failure carries details.
func (st *vmState) newBindingError(e *errs.Error) goja.Value {
	obj, err := st.vm.New(st.errorCtor, st.vm.ToValue(e.Error()))
	if err != nil {
		return st.vm.ToValue(e.Error())
	}
	_ = obj.Set("code", string(e.Code))
	if len(e.Info) > 0 {
		if b, err := json.Marshal(e.Info); err == nil {
			if v, err := st.parse(goja.Undefined(), st.vm.ToValue(string(b))); err == nil {
				_ = obj.Set("info", v)
			}
		}
	}
	st.bindingErrs[obj] = e.Code
	return obj
}

// jsErrorText is the message of a JavaScript exception without goja's
// position suffix.
func jsErrorText(err error) string {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		if o, ok := ex.Value().(*goja.Object); ok {
			if m := o.Get("message"); m != nil && !goja.IsUndefined(m) {
				return m.String()
			}
		}
		return ex.Value().String()
	}
	return err.Error()
}

// callLine is the line of the user's program that is calling a binding
// now (the frame below the binding's own), or 0 when that code is not the
// program's (eval, the prelude). It goes with the call to Job.Call (see
// engine.WithCallLine), for an approval prompt to show.
func (st *vmState) callLine(r *run) int {
	st.frames = st.vm.CaptureCallStack(2, st.frames[:0])
	for i := range st.frames {
		f := &st.frames[i]
		if n := f.SrcName(); n != r.job.Name && !strings.HasSuffix(n, ".ts") {
			continue
		}
		if line := f.Position().Line - r.job.LineOffset; line >= 1 && (r.job.SourceLines == 0 || line <= r.job.SourceLines) {
			return line
		}
	}
	return 0
}
