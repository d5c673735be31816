package gojaengine

import (
	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/goja"
)

// nativeCount is the length of glue.js's list of natives.
const nativeCount = 16

// nativeTable is the prelude's native argument: glue.js's list of Go
// functions, each made when the prelude first reads it (a function object
// costs every runtime ~400 bytes, and those that only lazily made code
// calls are read by glue.js's glueLate, on first need). Read-only: the
// prelude never writes it, and no program sees it.
type nativeTable struct {
	v   *vm
	fns [nativeCount]goja.Value
}

var _ goja.DynamicArray = (*nativeTable)(nil)

func (t *nativeTable) Len() int { return nativeCount }

func (t *nativeTable) Set(int, goja.Value) bool { return false }

func (t *nativeTable) SetLen(int) bool { return false }

// Get returns native i, made on first read (the same function object at
// every read); undefined outside the list and at 0, emit (console's
// methods are Go functions: vm.console).
func (t *nativeTable) Get(i int) goja.Value {
	if i <= 0 || i >= nativeCount {
		return goja.Undefined()
	}
	if t.fns[i] == nil {
		// Unnamed: the prelude keeps them to itself. (goja's ToValue
		// would name each after its Go symbol.)
		t.fns[i] = t.v.rt.NewNativeFunction(t.native(i), "", 0)
	}
	return t.fns[i]
}

// native is the Go function behind native i (glue.js's list).
func (t *nativeTable) native(i int) func(goja.FunctionCall) goja.Value {
	v := t.v
	rt := v.rt
	switch i {
	case 1: // reserve(what, bytes, buffer)
		return func(c goja.FunctionCall) goja.Value {
			return rt.ToValue(v.reserve(c.Argument(0).String(), c.Argument(1).ToFloat(), c.Argument(2).ToBoolean()))
		}
	case 2: // refusal(name)
		return v.refusalOf
	case 3: // call(name, json)
		return v.call
	case 4: // tools(): the run's tool names
		return func(goja.FunctionCall) goja.Value {
			if v.names == nil {
				names := []string(nil)
				if v.run != nil {
					names = v.run.Job().Tools
				}
				vals := make([]any, len(names))
				for i, n := range names {
					vals[i] = n
				}
				v.names = rt.NewArray(vals...)
			}
			return v.names
		}
	case 5: // makeTools(makeTraps)
		return func(c goja.FunctionCall) goja.Value {
			return v.makeTools(c.Argument(0))
		}
	case 6: // timer(id, ms, fire, rearm)
		return v.timer
	case 7: // clearTimer(id)
		return func(c goja.FunctionCall) goja.Value {
			if r := v.run; r != nil {
				id := c.Argument(0).ToInteger()
				if h, ok := v.timers[id]; ok {
					delete(v.timers, id)
					r.ClearTimer(h)
				}
			}
			return goja.Undefined()
		}
	case 8: // service(op, arg): webapi
		return func(c goja.FunctionCall) goja.Value {
			return rt.ToValue(engine.HostService(v.d.zone, c.Argument(0).String(), c.Argument(1).String()))
		}
	case 9: // hostLazy(names, build)
		return v.hostLazy
	case 10: // console(format)
		return func(c goja.FunctionCall) goja.Value {
			format, ok := goja.AssertFunction(c.Argument(0))
			if !ok {
				panic(rt.NewTypeError("console: format is not a function"))
			}
			return v.console(format)
		}
	case 11: // hide(f)
		return func(c goja.FunctionCall) goja.Value {
			if o, ok := c.Argument(0).(*goja.Object); ok {
				o.SetSourceHidden()
			}
			return goja.Undefined()
		}
	case 12: // isArrayValues(method)
		return func(c goja.FunctionCall) goja.Value {
			return rt.ToValue(rt.IsArrayValues(c.Argument(0)))
		}
	case 13: // hostLazyArray(names, build)
		return v.hostLazyArray
	case 14: // isProxy(v)
		return func(c goja.FunctionCall) goja.Value {
			return rt.ToValue(goja.IsProxy(c.Argument(0)))
		}
	default: // 15: intrinsic(name)
		return func(c goja.FunctionCall) goja.Value {
			if val := rt.Intrinsic(c.Argument(0).String()); val != nil {
				return val
			}
			panic(rt.NewTypeError("no intrinsic " + c.Argument(0).String()))
		}
	}
}
