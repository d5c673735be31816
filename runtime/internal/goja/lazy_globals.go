package goja

// codemode patch (whole file): globals an embedder builds on first touch.
//
// goja's global object is a templatedObject: each built-in global is made
// the first time a program reads it (or enumerates the global object).
// LazyGlobals extends that template with names of the embedder's, whose
// values a function of the embedder's builds on first touch, so an
// embedder that defines many rarely used globals in every runtime (a
// sandbox's withheld functions, its timers) pays only for those a program
// reaches. To the program such a global is an ordinary writable,
// configurable, non-enumerable data property of the global object, there
// from the start: typeof, `in`, delete, defineProperty, enumeration and
// reads by a computed name all see it (each materialises it first).

import (
	"fmt"

	"github.com/codemode/codemode/runtime/internal/goja/unistring"
)

// LazyGlobals is a global object template with extra names. Make one per
// process (it is immutable and shared), then SetLazyGlobals on each
// runtime right after New.
type LazyGlobals struct {
	tmpl *objectTemplate
}

// NewLazyGlobals returns the template of goja's global object with names
// added. It panics if a name is one of goja's own globals or repeated.
func NewLazyGlobals(names ...string) *LazyGlobals {
	return NewLazyGlobalsFixed(names, nil)
}

// NewLazyGlobalsFixed is NewLazyGlobals with, besides names, the names in
// fixed: globals that are read-only and non-configurable (the embedder's
// build gives their value when one is first touched: an embedder that
// defines such a global in every runtime, as defineProperty would, saves
// the global object its own copy of the template's list of names).
func NewLazyGlobalsFixed(names, fixed []string) *LazyGlobals {
	return NewLazyGlobalsReplacing(names, fixed, nil)
}

// NewLazyGlobalsReplacing is NewLazyGlobalsFixed with, besides, goja's own
// globals named in replaced built by the embedder's build instead, on
// first touch, in the place and with the attributes goja gives them
// (writable, configurable, not enumerable): an embedder that replaces
// a built-in global in every runtime (the sandbox's checking eval) makes
// its replacement only in the runtimes whose programs touch it, and
// never makes goja's. It panics if a name in replaced is not one of
// goja's globals.
func NewLazyGlobalsReplacing(names, fixed, replaced []string) *LazyGlobals {
	base := getGlobalObjectTemplate()
	t := &objectTemplate{
		propNames:    append(make([]unistring.String, 0, len(base.propNames)+len(names)+len(fixed)), base.propNames...),
		props:        make(map[unistring.String]templatePropFactory, len(base.props)+len(names)+len(fixed)),
		symProps:     base.symProps,
		symPropNames: base.symPropNames,
		protoFactory: base.protoFactory,
	}
	for k, f := range base.props {
		t.props[k] = f
	}
	for _, n := range names {
		name := unistring.NewFromString(n)
		if _, dup := t.props[name]; dup {
			panic(fmt.Sprintf("goja: lazy global %q is already a global", n))
		}
		t.putStr(name, func(r *Runtime) Value { return r.buildLazyGlobal(name, true) })
	}
	for _, n := range fixed {
		name := unistring.NewFromString(n)
		if _, dup := t.props[name]; dup {
			panic(fmt.Sprintf("goja: lazy global %q is already a global", n))
		}
		t.putStr(name, func(r *Runtime) Value { return r.buildLazyGlobal(name, false) })
	}
	for _, n := range replaced {
		name := unistring.NewFromString(n)
		if _, ok := t.props[name]; !ok {
			panic(fmt.Sprintf("goja: replaced global %q is not a global", n))
		}
		t.props[name] = func(r *Runtime) Value { return r.buildLazyGlobal(name, true) }
	}
	return &LazyGlobals{tmpl: t}
}

// SetLazyGlobals makes the runtime's global object use l's template, and
// build its extra names with build, which returns the value of the
// global named (nil: the global is absent). It must be called before
// anything touched the global object (right after New); build runs on the
// runtime's goroutine, in the middle of whatever property access reached
// the global first, and may call into JavaScript (a panic of build
// propagates as a native function's would). A build that reads the global
// it is building gets a TypeError.
func (r *Runtime) SetLazyGlobals(l *LazyGlobals, build func(name string) Value) error {
	o, ok := r.globalObject.self.(*templatedObject)
	if !ok || o.values.len() != 0 || o.propNames != nil || o.symValues != nil {
		return fmt.Errorf("goja: SetLazyGlobals after the global object was used")
	}
	o.tmpl = l.tmpl
	r.lazyGlobal = build
	return nil
}

func (r *Runtime) buildLazyGlobal(name unistring.String, writable bool) Value {
	if r.lazyGlobal == nil {
		return nil
	}
	for _, n := range r.lazyBuilding {
		if n == name {
			panic(r.NewTypeError("global %s read while it is being built", name))
		}
	}
	r.lazyBuilding = append(r.lazyBuilding, name)
	defer func() { r.lazyBuilding = r.lazyBuilding[:len(r.lazyBuilding)-1] }()
	v := r.lazyGlobal(name.String())
	if v == nil {
		return nil
	}
	return valueProp(v, writable, false, writable)
}
