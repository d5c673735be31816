package goja

import (
	"runtime"
	"sync"
	"weak"
)

type weakMap struct {
	m map[weak.Pointer[Object]]Value
	// s holds the symbol keys (codemode patch: ES2023 symbols as weak
	// keys; see weakKey).
	s map[weak.Pointer[Symbol]]Value
	sync.Mutex
}

// weakKey is CanBeHeldWeakly (ES2023): an object, or a symbol that is not
// in the global registry (Symbol.for). codemode patch: upstream took
// objects only. It returns the key as an object or as a symbol.
func (r *Runtime) weakKey(v Value) (*Object, *Symbol, bool) {
	switch v := v.(type) {
	case *Object:
		return v, nil, true
	case *Symbol:
		if v.desc == nil || r.symbolRegistry[v.desc.string()] != v {
			return nil, v, true
		}
	}
	return nil, nil, false
}

// The symbol-keyed operations (codemode patch), as set, get, remove, has.

func (wm *weakMap) setSym(key *Symbol, value Value) {
	p := weak.Make(key)
	wm.Lock()
	if wm.s == nil {
		wm.s = make(map[weak.Pointer[Symbol]]Value)
	}
	_, exists := wm.s[p]
	wm.s[p] = value
	wm.Unlock()
	if !exists {
		wmPtr := weak.Make(wm)
		runtime.AddCleanup(key, func(p weak.Pointer[Symbol]) {
			wm := wmPtr.Value()
			if wm == nil {
				return
			}
			wm.Lock()
			delete(wm.s, p)
			wm.Unlock()
		}, p)
	}
}

func (wm *weakMap) getSym(key *Symbol) (res Value) {
	p := weak.Make(key)
	wm.Lock()
	res = wm.s[p]
	wm.Unlock()
	return
}

func (wm *weakMap) removeSym(key *Symbol) (removed bool) {
	p := weak.Make(key)
	wm.Lock()
	if _, removed = wm.s[p]; removed {
		delete(wm.s, p)
	}
	wm.Unlock()
	return
}

func (wm *weakMap) hasSym(key *Symbol) bool {
	p := weak.Make(key)
	wm.Lock()
	_, exists := wm.s[p]
	wm.Unlock()
	return exists
}

// setKey, getKey, removeKey and hasKey take any value (codemode patch):
// a key that cannot be held weakly is refused by setKey and absent for
// the others.
func (wm *weakMap) setKey(r *Runtime, key, value Value, what string) {
	o, s, ok := r.weakKey(key)
	switch {
	case o != nil:
		wm.set(o, value)
	case ok:
		wm.setSym(s, value)
	default:
		panic(r.NewTypeError("Invalid value used %s: %s", what, key.String()))
	}
}

func (wm *weakMap) getKey(r *Runtime, key Value) Value {
	if o, s, ok := r.weakKey(key); o != nil {
		return wm.get(o)
	} else if ok {
		return wm.getSym(s)
	}
	return nil
}

func (wm *weakMap) removeKey(r *Runtime, key Value) bool {
	if o, s, ok := r.weakKey(key); o != nil {
		return wm.remove(o)
	} else if ok {
		return wm.removeSym(s)
	}
	return false
}

func (wm *weakMap) hasKey(r *Runtime, key Value) bool {
	if o, s, ok := r.weakKey(key); o != nil {
		return wm.has(o)
	} else if ok {
		return wm.hasSym(s)
	}
	return false
}

func (wm *weakMap) set(key *Object, value Value) {
	p := weak.Make(key)
	wm.Lock()
	_, exists := wm.m[p]
	wm.m[p] = value
	wm.Unlock()
	if !exists {
		wmPtr := weak.Make(wm) // do not hold strong reference to wm so that it could be collected by GC
		runtime.AddCleanup(key, func(p weak.Pointer[Object]) {
			wm := wmPtr.Value()
			if wm == nil {
				return
			}
			wm.Lock()
			delete(wm.m, p)
			wm.Unlock()
		}, p)
	}
}

func (wm *weakMap) get(key *Object) (res Value) {
	p := weak.Make(key)
	wm.Lock()
	res = wm.m[p]
	wm.Unlock()
	return
}

func (wm *weakMap) remove(key *Object) (removed bool) {
	p := weak.Make(key)
	wm.Lock()
	if _, removed = wm.m[p]; removed {
		delete(wm.m, p)
	}
	wm.Unlock()
	return
}

func (wm *weakMap) has(key *Object) bool {
	p := weak.Make(key)
	wm.Lock()
	_, exists := wm.m[p]
	wm.Unlock()
	return exists
}

type weakMapObject struct {
	baseObject
	m weakMap
}

func (wmo *weakMapObject) init() {
	wmo.baseObject.init()
	wmo.m = weakMap{
		m: make(map[weak.Pointer[Object]]Value),
	}
}

func (r *Runtime) weakMapProto_delete(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	wmo, ok := thisObj.self.(*weakMapObject)
	if !ok {
		panic(r.NewTypeError("Method WeakMap.prototype.delete called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	if wmo.m.removeKey(r, call.Argument(0)) { // codemode patch: symbol keys
		return valueTrue
	}
	return valueFalse
}

func (r *Runtime) weakMapProto_get(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	wmo, ok := thisObj.self.(*weakMapObject)
	if !ok {
		panic(r.NewTypeError("Method WeakMap.prototype.get called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	res := wmo.m.getKey(r, call.Argument(0)) // codemode patch: symbol keys
	if res == nil {
		return _undefined
	}
	return res
}

func (r *Runtime) weakMapProto_has(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	wmo, ok := thisObj.self.(*weakMapObject)
	if !ok {
		panic(r.NewTypeError("Method WeakMap.prototype.has called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	if wmo.m.hasKey(r, call.Argument(0)) { // codemode patch: symbol keys
		return valueTrue
	}
	return valueFalse
}

func (r *Runtime) weakMapProto_set(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	wmo, ok := thisObj.self.(*weakMapObject)
	if !ok {
		panic(r.NewTypeError("Method WeakMap.prototype.set called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	wmo.m.setKey(r, call.Argument(0), call.Argument(1), "as weak map key") // codemode patch: symbol keys
	return call.This
}

func (r *Runtime) needNew(name string) *Object {
	return r.NewTypeError("Constructor %s requires 'new'", name)
}

func (r *Runtime) builtin_newWeakMap(args []Value, newTarget *Object) *Object {
	if newTarget == nil {
		panic(r.needNew("WeakMap"))
	}
	proto := r.getPrototypeFromCtor(newTarget, r.global.WeakMap, r.getWeakMapPrototype()) // codemode patch: the prototype is a template, made on first use (proto_templates.go)
	o := &Object{runtime: r}

	wmo := &weakMapObject{}
	wmo.class = classObject
	wmo.val = o
	wmo.extensible = true
	o.self = wmo
	wmo.prototype = proto
	wmo.init()
	if len(args) > 0 {
		if arg := args[0]; arg != nil && arg != _undefined && arg != _null {
			adder := wmo.getStr("set", nil)
			adderFn := toMethod(adder)
			if adderFn == nil {
				panic(r.NewTypeError("WeakMap.set in missing"))
			}
			iter := r.getIterator(arg, nil)
			i0 := valueInt(0)
			i1 := valueInt(1)
			if adder == r.global.weakMapAdder {
				iter.iterate(func(item Value) {
					itemObj := r.toObject(item)
					k := itemObj.self.getIdx(i0, nil)
					v := nilSafe(itemObj.self.getIdx(i1, nil))
					wmo.m.setKey(r, k, v, "as weak map key") // codemode patch: symbol keys
				})
			} else {
				iter.iterate(func(item Value) {
					itemObj := r.toObject(item)
					k := itemObj.self.getIdx(i0, nil)
					v := itemObj.self.getIdx(i1, nil)
					adderFn(FunctionCall{This: o, Arguments: []Value{k, v}})
				})
			}
		}
	}
	return o
}

// codemode patch: a template (proto_templates.go).
func (r *Runtime) createWeakMapProto(val *Object) objectImpl {
	return r.newProtoObject(&weakMapProtoTemplate, val)
}

// codemode patch: a templated function object (proto_templates.go).
func (r *Runtime) createWeakMap(val *Object) objectImpl {
	return r.newTemplatedConstructOnly(&weakMapCtorTemplate, val, r.builtin_newWeakMap)
}

func (r *Runtime) getWeakMapPrototype() *Object {
	ret := r.global.WeakMapPrototype
	if ret == nil {
		ret = &Object{runtime: r}
		r.global.WeakMapPrototype = ret
		ret.self = r.createWeakMapProto(ret)
	}
	return ret
}

func (r *Runtime) getWeakMap() *Object {
	ret := r.global.WeakMap
	if ret == nil {
		ret = &Object{runtime: r}
		r.global.WeakMap = ret
		ret.self = r.createWeakMap(ret)
	}
	return ret
}
