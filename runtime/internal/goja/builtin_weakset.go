package goja

import "weak"

type weakSetObject struct {
	baseObject
	s weakMap
}

func (ws *weakSetObject) init() {
	ws.baseObject.init()
	ws.s = weakMap{
		m: make(map[weak.Pointer[Object]]Value),
	}
}

func (r *Runtime) weakSetProto_add(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	wso, ok := thisObj.self.(*weakSetObject)
	if !ok {
		panic(r.NewTypeError("Method WeakSet.prototype.add called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	wso.s.setKey(r, call.Argument(0), nil, "in weak set") // codemode patch: symbol keys
	return call.This
}

func (r *Runtime) weakSetProto_delete(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	wso, ok := thisObj.self.(*weakSetObject)
	if !ok {
		panic(r.NewTypeError("Method WeakSet.prototype.delete called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	if wso.s.removeKey(r, call.Argument(0)) { // codemode patch: symbol keys
		return valueTrue
	}
	return valueFalse
}

func (r *Runtime) weakSetProto_has(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	wso, ok := thisObj.self.(*weakSetObject)
	if !ok {
		panic(r.NewTypeError("Method WeakSet.prototype.has called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	if wso.s.hasKey(r, call.Argument(0)) { // codemode patch: symbol keys
		return valueTrue
	}
	return valueFalse
}

func (r *Runtime) builtin_newWeakSet(args []Value, newTarget *Object) *Object {
	if newTarget == nil {
		panic(r.needNew("WeakSet"))
	}
	proto := r.getPrototypeFromCtor(newTarget, r.global.WeakSet, r.getWeakSetPrototype()) // codemode patch: the prototype is a template, made on first use (proto_templates.go)
	o := &Object{runtime: r}

	wso := &weakSetObject{}
	wso.class = classObject
	wso.val = o
	wso.extensible = true
	o.self = wso
	wso.prototype = proto
	wso.init()
	if len(args) > 0 {
		if arg := args[0]; arg != nil && arg != _undefined && arg != _null {
			adder := wso.getStr("add", nil)
			stdArr := r.checkStdArrayIter(arg)
			if adder == r.global.weakSetAdder {
				if stdArr != nil {
					for _, v := range stdArr.values {
						wso.s.setKey(r, v, nil, "in weak set") // codemode patch: symbol keys
					}
				} else {
					r.getIterator(arg, nil).iterate(func(item Value) {
						wso.s.setKey(r, item, nil, "in weak set") // codemode patch: symbol keys
					})
				}
			} else {
				adderFn := toMethod(adder)
				if adderFn == nil {
					panic(r.NewTypeError("WeakSet.add in missing"))
				}
				if stdArr != nil {
					for _, item := range stdArr.values {
						adderFn(FunctionCall{This: o, Arguments: []Value{item}})
					}
				} else {
					r.getIterator(arg, nil).iterate(func(item Value) {
						adderFn(FunctionCall{This: o, Arguments: []Value{item}})
					})
				}
			}
		}
	}
	return o
}

// codemode patch: a template (proto_templates.go).
func (r *Runtime) createWeakSetProto(val *Object) objectImpl {
	return r.newProtoObject(&weakSetProtoTemplate, val)
}

// codemode patch: a templated function object (proto_templates.go).
func (r *Runtime) createWeakSet(val *Object) objectImpl {
	return r.newTemplatedConstructOnly(&weakSetCtorTemplate, val, r.builtin_newWeakSet)
}

func (r *Runtime) getWeakSetPrototype() *Object {
	ret := r.global.WeakSetPrototype
	if ret == nil {
		ret = &Object{runtime: r}
		r.global.WeakSetPrototype = ret
		ret.self = r.createWeakSetProto(ret)
	}
	return ret
}

func (r *Runtime) getWeakSet() *Object {
	ret := r.global.WeakSet
	if ret == nil {
		ret = &Object{runtime: r}
		r.global.WeakSet = ret
		ret.self = r.createWeakSet(ret)
	}
	return ret
}
