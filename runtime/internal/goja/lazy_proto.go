package goja

// codemode patch (whole file): Array.prototype methods an embedder
// replaces on first touch.
//
// Array.prototype is a templatedObject: each built-in method is made the
// first time something reads it (or enumerates the prototype). An
// embedder that replaces some of them in every runtime (a sandbox's
// guards in front of the built-ins that allocate or walk by a length)
// made the built-in and its replacement at setup, in every runtime, for
// methods most programs never call. LazyArrayProto extends the template
// so that reading such a name makes the built-in and hands it to the
// embedder, whose value becomes the property: to a program it is the
// replacement, an ordinary writable, configurable, non-enumerable data
// property, there from the start (as LazyGlobals' globals are).

import (
	"fmt"

	"github.com/codemode/codemode/runtime/internal/goja/unistring"
)

// LazyArrayProtoIterator is the name that stands for
// Array.prototype[Symbol.iterator] in NewLazyArrayProto and a build.
const LazyArrayProtoIterator = "@@iterator"

// LazyArrayProto is Array.prototype's template with some methods the
// embedder's. Make one per process (it is immutable and shared), then
// SetLazyArrayProto on each runtime right after New.
type LazyArrayProto struct {
	tmpl *objectTemplate
}

// NewLazyArrayProto returns Array.prototype's template in which the
// methods named (LazyArrayProtoIterator for Symbol.iterator) are the
// embedder's. It panics if a name is not a property of Array.prototype.
func NewLazyArrayProto(names ...string) *LazyArrayProto {
	base := getArrayProtoTemplate()
	t := &objectTemplate{
		propNames:    base.propNames,
		props:        make(map[unistring.String]templatePropFactory, len(base.props)),
		symProps:     make(map[*Symbol]templatePropFactory, len(base.symProps)),
		symPropNames: base.symPropNames,
		protoFactory: base.protoFactory,
	}
	for k, f := range base.props {
		t.props[k] = f
	}
	for k, f := range base.symProps {
		t.symProps[k] = f
	}
	for _, n := range names {
		name := n
		if n == LazyArrayProtoIterator {
			f := base.symProps[SymIterator]
			t.symProps[SymIterator] = func(r *Runtime) Value { return r.buildLazyArrayProto(name, f) }
			continue
		}
		f := base.props[unistring.NewFromString(n)]
		if f == nil {
			panic(fmt.Sprintf("goja: %q is not a method of Array.prototype", n))
		}
		t.props[unistring.NewFromString(n)] = func(r *Runtime) Value { return r.buildLazyArrayProto(name, f) }
	}
	return &LazyArrayProto{tmpl: t}
}

// SetLazyArrayProto makes the runtime's Array.prototype use l's template,
// and build the value of each method l names from the built-in, on first
// touch: build(name, builtin) returns the property's value (nil: the
// built-in). It must be called before anything made Array.prototype
// (right after New); build runs on the runtime's goroutine, in the middle
// of whatever property access reached the method first, and may call into
// JavaScript (a panic of build propagates as a native function's would).
// A build that reads the method it is building gets a TypeError.
func (r *Runtime) SetLazyArrayProto(l *LazyArrayProto, build func(name string, builtin Value) Value) error {
	if r.global.ArrayPrototype != nil {
		return fmt.Errorf("goja: SetLazyArrayProto after Array.prototype was made")
	}
	r.arrayProtoTmpl = l.tmpl
	r.lazyArrayProto = build
	return nil
}

func (r *Runtime) buildLazyArrayProto(name string, builtin templatePropFactory) Value {
	p := builtin(r)
	if r.lazyArrayProto == nil {
		return p
	}
	key := unistring.String("Array.prototype." + name) // lazyBuilding also holds globals' names
	for _, n := range r.lazyBuilding {
		if n == key {
			panic(r.NewTypeError("Array.prototype.%s read while it is being built", name))
		}
	}
	r.lazyBuilding = append(r.lazyBuilding, key)
	defer func() { r.lazyBuilding = r.lazyBuilding[:len(r.lazyBuilding)-1] }()
	var v Value = p
	if vp, ok := p.(*valueProperty); ok {
		v = vp.value
	}
	nv := r.lazyArrayProto(name, v)
	if nv == nil {
		return p
	}
	return valueProp(nv, true, false, true)
}
