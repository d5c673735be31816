package goja

// codemode patch (whole file): the prototypes of Error and the native
// errors, Promise, WeakMap and WeakSet are object templates, as
// Number.prototype is: each method, constructor and tag is made when it is
// first read. An embedder that reads one method of them (a sandbox's
// prelude captures Promise.reject, WeakMap.prototype.get, Error.prototype
// .toString, …) in every runtime no longer builds them whole.

import (
	"sync"

	"github.com/codemode/codemode/runtime/internal/goja/unistring"
)

// lazyTemplate is a process-wide template, made on first use.
type lazyTemplate struct {
	once sync.Once
	t    *objectTemplate
	make func() *objectTemplate
}

func (l *lazyTemplate) get() *objectTemplate {
	l.once.Do(func() { l.t = l.make() })
	return l.t
}

func objectProtoFactory(r *Runtime) *Object { return r.global.ObjectPrototype }

// newProtoTemplate is a template whose prototype is Object.prototype, with
// @@toStringTag tag when tag is not empty.
func newProtoTemplate(tag string) *objectTemplate {
	t := newObjectTemplate()
	t.protoFactory = objectProtoFactory
	if tag != "" {
		t.putSym(SymToStringTag, func(*Runtime) Value { return valueProp(asciiString(tag), false, false, true) })
	}
	return t
}

func makeErrorProtoTemplate() *objectTemplate {
	t := newProtoTemplate("")
	t.putStr("message", func(*Runtime) Value { return valueProp(stringEmpty, true, false, true) })
	t.putStr("name", func(*Runtime) Value { return valueProp(stringError, true, false, true) })
	t.putStr("toString", func(r *Runtime) Value { return r.methodProp(r.error_toString, asciiString("toString"), 0) })
	t.putStr("constructor", func(r *Runtime) Value { return valueProp(r.getError(), true, false, true) })
	return t
}

// nativeErrorProtoTemplates are the templates of the native errors'
// prototypes (TypeError.prototype, …), by name; their prototype is
// Error.prototype.
func makeNativeErrorProtoTemplates() map[unistring.String]*lazyTemplate {
	m := map[unistring.String]*lazyTemplate{}
	for _, e := range []struct {
		name String
		ctor func(*Runtime) *Object
	}{
		{stringAggregateError, (*Runtime).getAggregateError},
		{stringTypeError, (*Runtime).getTypeError},
		{stringReferenceError, (*Runtime).getReferenceError},
		{stringSyntaxError, (*Runtime).getSyntaxError},
		{stringRangeError, (*Runtime).getRangeError},
		{stringEvalError, (*Runtime).getEvalError},
		{stringURIError, (*Runtime).getURIError},
		{stringGoError, (*Runtime).getGoError},
	} {
		m[e.name.string()] = &lazyTemplate{make: func() *objectTemplate {
			t := newObjectTemplate()
			t.protoFactory = (*Runtime).getErrorPrototype
			t.putStr("message", func(*Runtime) Value { return valueProp(stringEmpty, true, false, true) })
			t.putStr("name", func(*Runtime) Value { return valueProp(e.name, true, false, true) })
			t.putStr("constructor", func(r *Runtime) Value { return valueProp(e.ctor(r), true, false, true) })
			return t
		}}
	}
	return m
}

func makePromiseProtoTemplate() *objectTemplate {
	t := newProtoTemplate(classPromise)
	t.putStr("constructor", func(r *Runtime) Value { return valueProp(r.getPromise(), true, false, true) })
	t.putStr("catch", func(r *Runtime) Value { return r.methodProp(r.promiseProto_catch, asciiString("catch"), 1) })
	t.putStr("finally", func(r *Runtime) Value { return r.methodProp(r.promiseProto_finally, asciiString("finally"), 1) })
	t.putStr("then", func(r *Runtime) Value { return r.methodProp(r.promiseProto_then, asciiString("then"), 2) })
	return t
}

// WeakMap's and WeakSet's adders are remembered when made: their
// constructors take a fast path when the prototype's adder is the
// built-in one.
func makeWeakMapProtoTemplate() *objectTemplate {
	t := newProtoTemplate(classWeakMap)
	t.putStr("constructor", func(r *Runtime) Value { return valueProp(r.getWeakMap(), true, false, true) })
	t.putStr("set", func(r *Runtime) Value {
		r.global.weakMapAdder = r.newNativeFunc(r.weakMapProto_set, "set", 2)
		return valueProp(r.global.weakMapAdder, true, false, true)
	})
	t.putStr("delete", func(r *Runtime) Value { return r.methodProp(r.weakMapProto_delete, asciiString("delete"), 1) })
	t.putStr("has", func(r *Runtime) Value { return r.methodProp(r.weakMapProto_has, asciiString("has"), 1) })
	t.putStr("get", func(r *Runtime) Value { return r.methodProp(r.weakMapProto_get, asciiString("get"), 1) })
	return t
}

func makeWeakSetProtoTemplate() *objectTemplate {
	t := newProtoTemplate(classWeakSet)
	t.putStr("constructor", func(r *Runtime) Value { return valueProp(r.getWeakSet(), true, false, true) })
	t.putStr("add", func(r *Runtime) Value {
		r.global.weakSetAdder = r.newNativeFunc(r.weakSetProto_add, "add", 1)
		return valueProp(r.global.weakSetAdder, true, false, true)
	})
	t.putStr("delete", func(r *Runtime) Value { return r.methodProp(r.weakSetProto_delete, asciiString("delete"), 1) })
	t.putStr("has", func(r *Runtime) Value { return r.methodProp(r.weakSetProto_has, asciiString("has"), 1) })
	return t
}

// (Assigned in init: the templates refer to the functions that use them.)
var (
	errorProtoTemplate, promiseProtoTemplate, weakMapProtoTemplate, weakSetProtoTemplate lazyTemplate
	nativeErrorProtoTemplates                                                            map[unistring.String]*lazyTemplate
)

func init() {
	errorProtoTemplate.make = makeErrorProtoTemplate
	promiseProtoTemplate.make = makePromiseProtoTemplate
	weakMapProtoTemplate.make = makeWeakMapProtoTemplate
	weakSetProtoTemplate.make = makeWeakSetProtoTemplate
	nativeErrorProtoTemplates = makeNativeErrorProtoTemplates()
}

// newProtoObject makes val a templated prototype object.
func (r *Runtime) newProtoObject(l *lazyTemplate, val *Object) *templatedObject {
	return r.newTemplatedObject(l.get(), val)
}

// Array and Promise are templated function objects, as Number is: their
// static methods and @@species are made when first read.

// newCtorTemplate is the template of a constructor's own length, name and
// prototype.
func newCtorTemplate(name string, length int64, proto func(*Runtime) *Object) *objectTemplate {
	t := newObjectTemplate()
	t.protoFactory = (*Runtime).getFunctionPrototype
	t.putStr("length", func(*Runtime) Value { return valueProp(intToValue(length), false, false, true) })
	t.putStr("name", func(*Runtime) Value { return valueProp(asciiString(name), false, false, true) })
	t.putStr("prototype", func(r *Runtime) Value { return valueProp(proto(r), false, false, false) })
	return t
}

func putSpeciesTemplate(t *objectTemplate) {
	t.putSym(SymSpecies, func(r *Runtime) Value {
		return &valueProperty{
			getterFunc:   r.newNativeFunc(r.returnThis, "get [Symbol.species]", 0),
			accessor:     true,
			configurable: true,
		}
	})
}

func makeArrayCtorTemplate() *objectTemplate {
	t := newCtorTemplate("Array", 1, (*Runtime).getArrayPrototype)
	t.putStr("from", func(r *Runtime) Value { return r.methodProp(r.array_from, asciiString("from"), 1) })
	t.putStr("isArray", func(r *Runtime) Value { return r.methodProp(r.array_isArray, asciiString("isArray"), 1) })
	t.putStr("of", func(r *Runtime) Value { return r.methodProp(r.array_of, asciiString("of"), 0) })
	putSpeciesTemplate(t)
	return t
}

func makePromiseCtorTemplate() *objectTemplate {
	t := newCtorTemplate("Promise", 1, (*Runtime).getPromisePrototype)
	t.putStr("all", func(r *Runtime) Value { return r.methodProp(r.promise_all, asciiString("all"), 1) })
	t.putStr("allSettled", func(r *Runtime) Value { return r.methodProp(r.promise_allSettled, asciiString("allSettled"), 1) })
	t.putStr("any", func(r *Runtime) Value { return r.methodProp(r.promise_any, asciiString("any"), 1) })
	t.putStr("race", func(r *Runtime) Value { return r.methodProp(r.promise_race, asciiString("race"), 1) })
	t.putStr("reject", func(r *Runtime) Value { return r.methodProp(r.promise_reject, asciiString("reject"), 1) })
	t.putStr("resolve", func(r *Runtime) Value { return r.methodProp(r.promise_resolve, asciiString("resolve"), 1) })
	putSpeciesTemplate(t)
	return t
}

var arrayCtorTemplate, promiseCtorTemplate lazyTemplate

func init() {
	arrayCtorTemplate.make = makeArrayCtorTemplate
	promiseCtorTemplate.make = makePromiseCtorTemplate
}

// Error and the native errors are templated function objects too (their
// prototypes made at once: the constructor's call needs it).

func makeErrorCtorTemplate() *objectTemplate {
	t := newCtorTemplate("Error", 1, (*Runtime).getErrorPrototype)
	t.putStr("isError", func(r *Runtime) Value { return r.methodProp(r.error_isError, asciiString("isError"), 1) })
	return t
}

var errorCtorTemplate lazyTemplate

// nativeErrorCtorTemplates are the native errors' constructors'
// templates, by name; their [[Prototype]] is Error.
var nativeErrorCtorTemplates map[unistring.String]*lazyTemplate

func init() {
	errorCtorTemplate.make = makeErrorCtorTemplate
	nativeErrorCtorTemplates = map[unistring.String]*lazyTemplate{}
	for _, e := range []struct {
		name   String
		length int64
		ctor   func(*Runtime) *Object
	}{
		{stringAggregateError, 2, (*Runtime).getAggregateError},
		{stringTypeError, 1, (*Runtime).getTypeError},
		{stringReferenceError, 1, (*Runtime).getReferenceError},
		{stringSyntaxError, 1, (*Runtime).getSyntaxError},
		{stringRangeError, 1, (*Runtime).getRangeError},
		{stringEvalError, 1, (*Runtime).getEvalError},
		{stringURIError, 1, (*Runtime).getURIError},
		{stringGoError, 1, (*Runtime).getGoError},
	} {
		nativeErrorCtorTemplates[e.name.string()] = &lazyTemplate{make: func() *objectTemplate {
			t := newCtorTemplate(e.name.String(), e.length, func(r *Runtime) *Object {
				return r.getPrototypeOfCtor(e.ctor(r))
			})
			t.protoFactory = (*Runtime).getError
			return t
		}}
	}
}

// getPrototypeOfCtor is the prototype a templated native error
// constructor was made with (newNativeErrorCtor).
func (r *Runtime) getPrototypeOfCtor(ctor *Object) *Object {
	return ctor.self.(*templatedFuncObject).protoObj
}

// newNativeErrorCtor makes val the native error constructor named name,
// calling construct with the prototype object proto.
func (r *Runtime) newNativeErrorCtor(val *Object, construct func(args []Value, proto *Object) *Object, name String, proto *Object) {
	f := r.newTemplatedFuncObject(nativeErrorCtorTemplates[name.string()].get(), val, r.constructToCall(construct, proto), r.wrapNativeConstruct(construct, val, proto))
	f.protoObj = proto
}

// arrayUnscopablesTemplate is Array.prototype[@@unscopables], an object
// with a null prototype.
var arrayUnscopablesTemplate = lazyTemplate{make: func() *objectTemplate {
	t := newObjectTemplate()
	for _, name := range []unistring.String{"copyWithin", "entries", "fill", "find", "findIndex", "findLast", "findLastIndex", "flat", "flatMap",
		"includes", "keys", "values", "groupBy", "groupByToMap", "toReversed", "toSorted", "toSpliced"} {
		t.putStr(name, func(*Runtime) Value { return valueTrue })
	}
	return t
}}

var weakMapCtorTemplate, weakSetCtorTemplate lazyTemplate

func init() {
	weakMapCtorTemplate.make = func() *objectTemplate { return newCtorTemplate("WeakMap", 0, (*Runtime).getWeakMapPrototype) }
	weakSetCtorTemplate.make = func() *objectTemplate { return newCtorTemplate("WeakSet", 0, (*Runtime).getWeakSetPrototype) }
}

// newTemplatedConstructOnly is newNativeConstructOnly with a template.
func (r *Runtime) newTemplatedConstructOnly(l *lazyTemplate, val *Object, ctor func(args []Value, newTarget *Object) *Object) *templatedFuncObject {
	return r.newTemplatedFuncObject(l.get(), val, func(call FunctionCall) Value {
		return ctor(call.Arguments, nil)
	}, func(args []Value, newTarget *Object) *Object {
		if newTarget == nil {
			newTarget = val
		}
		return ctor(args, newTarget)
	})
}

// WarmAsync makes what the first async function a runtime runs makes
// besides its own objects (%AsyncFunction.prototype%, Promise.prototype),
// so that an embedder that builds runtimes ahead of their programs need
// not run a throwaway async function for it.
func (r *Runtime) WarmAsync() {
	r.getAsyncFunctionPrototype()
	r.getPromisePrototype()
}
