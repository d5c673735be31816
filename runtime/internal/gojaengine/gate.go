package gojaengine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/codemode/codemode/runtime/internal/goja"
	"github.com/codemode/codemode/runtime/internal/jsparse"
)

// Source text a program hands to eval or to a Function constructor is
// parsed by goja on the VM's goroutine, with goja's recursive parser: text
// nested deep enough overflows the Go stack, which kills the process. So
// the sandbox replaces eval with a native function, and hooks the Function
// constructors (goja.SetFunctionGate, an in-tree patch), so that the text
// is checked as programs are checked (size, then the nesting-bounded
// parser of package jsparse) before goja's parser sees it.
//
// The replacement eval is an ordinary function, so every eval is indirect:
// it runs in the global scope and does not see the caller's local
// variables (goja recognises a direct eval by the identity of its own
// intrinsic, which the sandbox cannot give a checking function).

// Defaults when the environment did not set its own (runtime.Limits has
// the same defaults).
const (
	defaultMaxCode    = 256 << 10
	defaultMaxNesting = 1000
)

// stackOverflowPrefix begins the RangeError for an eval or Function source
// nested too deep, as V8 words it (engine.fromThrown reads it as
// STACK_OVERFLOW).
const stackOverflowPrefix = "Maximum call stack size exceeded: "

// checkSource returns why src may not reach goja's parser, or "".
func (v *vm) checkSource(what, src string) string {
	maxCode, maxNesting := v.cfg.MaxCodeBytes, v.cfg.MaxNestingDepth
	if maxCode <= 0 {
		maxCode = defaultMaxCode
	}
	if maxNesting <= 0 {
		maxNesting = defaultMaxNesting
	}
	if len(src) > maxCode {
		return fmt.Sprintf("%s: the code is %d bytes, over the %d-byte limit on programs", what, len(src), maxCode)
	}
	_, err := jsparse.ParseFile(nil, "", src, 0, jsparse.WithDisableSourceMaps, jsparse.WithMaxDepth(maxNesting))
	var deep *jsparse.NestingError
	if errors.As(err, &deep) {
		// V8's (and QuickJS's) answer to such a string is a stack
		// overflow: the same RangeError, so one cause has one code
		// (STACK_OVERFLOW) on both engines.
		return fmt.Sprintf("%s%s: the code nests deeper than %d levels", stackOverflowPrefix, what, maxNesting)
	}
	return "" // a syntax error is goja's to report, in its own words
}

// sourceRefusal is the error a checking eval or Function constructor throws:
// the realm's own SyntaxError or RangeError, whatever a program did to the
// globals (goja's intrinsics: nothing is read or built here).
func (v *vm) sourceRefusal(msg string) *goja.Object {
	if strings.HasPrefix(msg, stackOverflowPrefix) {
		return v.rt.NewRangeError(msg)
	}
	return v.rt.NewSyntaxError(msg)
}

// checkingEval is the global eval, made when a program first touches it
// (buildGlobal: goja's eval is a replaced entry of the global object's
// template, lazyGlobals, in the built-in's place and with its attributes:
// writable, configurable, not enumerable). It checks a string before it
// hands it to the built-in, which it takes from the realm then (goja's
// intrinsic: nothing a program did to the globals matters).
func (v *vm) checkingEval() goja.Value {
	rt := v.rt
	origEval, ok := goja.AssertFunction(rt.Intrinsic("eval"))
	if !ok {
		panic(rt.NewTypeError("eval is not a function"))
	}
	return rt.NewNativeFunction(func(c goja.FunctionCall) goja.Value {
		if s, ok := c.Argument(0).(goja.String); ok {
			if msg := v.checkSource("eval", s.String()); msg != "" {
				panic(v.sourceRefusal(msg))
			}
		}
		res, err := origEval(goja.Undefined(), c.Arguments...)
		if err != nil {
			var ex *goja.Exception
			if errors.As(err, &ex) {
				panic(ex.Value())
			}
			panic(err)
		}
		return res
	}, "eval", 1)
}

// gateEval installs the checking Function constructors (the checking
// eval is made on first touch: checkingEval).
func (v *vm) gateEval() error {
	rt := v.rt
	// The constructors (Function, and those reachable only through their
	// prototypes, Object.getPrototypeOf(async function(){}).constructor)
	// check the text they compile through goja's hook (the in-tree patch,
	// goja.SetFunctionGate): no wrapper, nor the async and generator
	// machinery built to reach them, in every runtime.
	rt.SetFunctionGate(func(what, src string) *goja.Object {
		if msg := v.checkSource(what, src); msg != "" {
			return v.sourceRefusal(msg)
		}
		return nil
	})
	return nil
}
