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
