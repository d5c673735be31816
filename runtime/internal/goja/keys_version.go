package goja

// codemode patch (whole file): a version of the global object's own
// string keys, so that an embedder can tell that listing them again would
// give what it listed last, without listing them.
//
// Every templatedObject counts the calls that may add, delete or redefine
// one of its own string-keyed properties: setOwnStr, setForeignStr (and
// setForeignIdx, which goes through it), defineOwnPropertyStr, deleteStr
// (the Idx forms of baseObject go through those), and _putProp, which the
// VM calls directly to create a global `var` binding. Reading a property,
// which may materialise a template's value, changes no key and is not
// counted; a write to an existing property is (its enumerability may have
// been redefined), so the version errs towards "changed".

import "github.com/codemode/codemode/runtime/internal/goja/unistring"

func (o *templatedObject) _putProp(name unistring.String, value Value, writable, enumerable, configurable bool) Value {
	o.keysVersion++
	return o.baseObject._putProp(name, value, writable, enumerable, configurable)
}

// GlobalKeysVersion returns a number that changes whenever the global
// object's own string keys or their attributes may have changed (it can
// also change when they did not), and false when the global object is not
// goja's own (it then cannot tell: list the keys).
func (r *Runtime) GlobalKeysVersion() (uint32, bool) {
	o, ok := r.globalObject.self.(*templatedObject)
	if !ok {
		return 0, false
	}
	return o.keysVersion, true
}
