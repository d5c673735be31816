package goja

// codemode patch (whole file): an embedder's native functions with a
// name of its choosing, and the realm's own error constructors.

import "github.com/codemode/codemode/runtime/internal/goja/unistring"

// NewNativeFunction makes f a function object named name, of length
// length. It is ToValue(f) without the lookup of f's Go symbol name (a
// search of the binary's symbol table and a string allocation per
// function), for an embedder that names its functions itself or leaves
// them unnamed ("").
func (r *Runtime) NewNativeFunction(f func(FunctionCall) Value, name string, length int) *Object {
	return r.newNativeFunc(f, unistring.NewFromString(name), length)
}

// NewSyntaxError and NewRangeError make an error of the realm's own
// SyntaxError and RangeError (whatever a program did to the globals of
// those names), as NewTypeError does.
func (r *Runtime) NewSyntaxError(msg string) *Object {
	return r.builtin_new(r.getSyntaxError(), []Value{newStringValue(msg)})
}

func (r *Runtime) NewRangeError(msg string) *Object {
	return r.builtin_new(r.getRangeError(), []Value{newStringValue(msg)})
}

// IsProxy reports whether v is a Proxy exotic object (revoked or not),
// without running any program code (a trap) to answer.
func IsProxy(v Value) bool {
	o, ok := v.(*Object)
	if !ok {
		return false
	}
	_, ok = o.self.(*proxyObject)
	return ok
}

// Intrinsic returns the realm's built-in of the name given, as the realm
// made it, whatever a program did to the globals and prototypes since: a
// constructor or prototype is the realm's own object (WeakSet, WeakMap,
// Error, RangeError, TypeError, Proxy, Promise, Array, Array.prototype;
// eval, the built-in a direct eval must call), a method a new function
// object of the same built-in (WeakSet.prototype.add and has,
// WeakMap.prototype.get and set, Promise.reject, Object.prototype.toString,
// Error.prototype.toString, Reflect.apply, construct and get,
// Array.isArray, JSON.parse, Object.getOwnPropertyDescriptor, keys,
// getPrototypeOf and setPrototypeOf), which Reflect.apply runs with the
// built-in's own steps; Symbol.iterator is the symbol. nil for any other
// name. (An embedder that captures built-ins for later use need not read
// them before a program runs.)
func (r *Runtime) Intrinsic(name string) Value {
	switch name {
	case "Error":
		return r.getError()
	case "RangeError":
		return r.getRangeError()
	case "TypeError":
		return r.getTypeError()
	case "Proxy":
		return r.getProxy()
	case "Promise":
		return r.getPromise()
	case "Promise.reject":
		return r.newNativeFunc(r.promise_reject, "reject", 1)
	case "Object.prototype.toString":
		return r.newNativeFunc(r.objectproto_toString, "toString", 0)
	case "Error.prototype.toString":
		return r.newNativeFunc(r.error_toString, "toString", 0)
	case "Reflect.construct":
		return r.newNativeFunc(r.builtin_reflect_construct, "construct", 2)
	case "Reflect.get":
		return r.newNativeFunc(r.builtin_reflect_get, "get", 2)
	case "eval":
		return r.getEval()
	case "Array":
		return r.getArray()
	case "Array.prototype":
		return r.getArrayPrototype()
	case "Array.isArray":
		return r.newNativeFunc(r.array_isArray, "isArray", 1)
	case "Object.getOwnPropertyDescriptor":
		return r.newNativeFunc(r.object_getOwnPropertyDescriptor, "getOwnPropertyDescriptor", 2)
	case "Object.keys":
		return r.newNativeFunc(r.object_keys, "keys", 1)
	case "Object.getPrototypeOf":
		return r.newNativeFunc(r.object_getPrototypeOf, "getPrototypeOf", 1)
	case "Object.setPrototypeOf":
		return r.newNativeFunc(r.object_setPrototypeOf, "setPrototypeOf", 2)
	case "JSON.parse":
		return r.newNativeFunc(r.builtinJSON_parse, "parse", 2)
	case "Reflect.apply":
		return r.newNativeFunc(r.builtin_reflect_apply, "apply", 3)
	case "Symbol.iterator":
		return SymIterator
	case "WeakSet":
		return r.getWeakSet()
	case "WeakSet.prototype.add":
		return r.newNativeFunc(r.weakSetProto_add, "add", 1)
	case "WeakSet.prototype.has":
		return r.newNativeFunc(r.weakSetProto_has, "has", 1)
	case "WeakMap":
		return r.getWeakMap()
	case "WeakMap.prototype.get":
		return r.newNativeFunc(r.weakMapProto_get, "get", 1)
	case "WeakMap.prototype.set":
		return r.newNativeFunc(r.weakMapProto_set, "set", 2)
	}
	return nil
}
