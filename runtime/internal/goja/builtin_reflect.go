package goja

import "sync"

func (r *Runtime) builtin_reflect_apply(call FunctionCall) Value {
	return r.toCallable(call.Argument(0))(FunctionCall{
		This:      call.Argument(1),
		Arguments: r.createListFromArrayLike(call.Argument(2))})
}

func (r *Runtime) toConstructor(v Value) func(args []Value, newTarget *Object) *Object {
	if ctor := r.toObject(v).self.assertConstructor(); ctor != nil {
		return ctor
	}
	panic(r.NewTypeError("Value is not a constructor"))
}

func (r *Runtime) builtin_reflect_construct(call FunctionCall) Value {
	target := call.Argument(0)
	ctor := r.toConstructor(target)
	var newTarget Value
	if len(call.Arguments) > 2 {
		newTarget = call.Argument(2)
		r.toConstructor(newTarget)
	} else {
		newTarget = target
	}
	return ctor(r.createListFromArrayLike(call.Argument(1)), r.toObject(newTarget))
}

func (r *Runtime) builtin_reflect_defineProperty(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	key := toPropertyKey(call.Argument(1))
	desc := r.toPropertyDescriptor(call.Argument(2))

	return r.toBoolean(target.defineOwnProperty(key, desc, false))
}

func (r *Runtime) builtin_reflect_deleteProperty(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	key := toPropertyKey(call.Argument(1))

	return r.toBoolean(target.delete(key, false))
}

func (r *Runtime) builtin_reflect_get(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	key := toPropertyKey(call.Argument(1))
	var receiver Value
	if len(call.Arguments) > 2 {
		receiver = call.Arguments[2]
	}
	return target.get(key, receiver)
}

func (r *Runtime) builtin_reflect_getOwnPropertyDescriptor(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	key := toPropertyKey(call.Argument(1))
	return r.valuePropToDescriptorObject(target.getOwnProp(key))
}

func (r *Runtime) builtin_reflect_getPrototypeOf(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	if proto := target.self.proto(); proto != nil {
		return proto
	}

	return _null
}

func (r *Runtime) builtin_reflect_has(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	key := toPropertyKey(call.Argument(1))
	return r.toBoolean(target.hasProperty(key))
}

func (r *Runtime) builtin_reflect_isExtensible(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	return r.toBoolean(target.self.isExtensible())
}

func (r *Runtime) builtin_reflect_ownKeys(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	return r.newArrayValues(target.self.keys(true, nil))
}

func (r *Runtime) builtin_reflect_preventExtensions(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	return r.toBoolean(target.self.preventExtensions(false))
}

func (r *Runtime) builtin_reflect_set(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	var receiver Value
	if len(call.Arguments) >= 4 {
		receiver = call.Argument(3)
	} else {
		receiver = target
	}
	return r.toBoolean(target.set(call.Argument(1), call.Argument(2), receiver, false))
}

func (r *Runtime) builtin_reflect_setPrototypeOf(call FunctionCall) Value {
	target := r.toObject(call.Argument(0))
	var proto *Object
	if arg := call.Argument(1); arg != _null {
		proto = r.toObject(arg)
	}
	return r.toBoolean(target.self.setProto(proto, false))
}

// codemode patch: Reflect is a template, as Math is, so its methods are
// made when first read (a sandbox realm reads four of its thirteen).
func createReflectTemplate() *objectTemplate {
	t := newObjectTemplate()
	t.protoFactory = func(r *Runtime) *Object {
		return r.global.ObjectPrototype
	}

	t.putStr("apply", func(r *Runtime) Value { return r.methodProp(r.builtin_reflect_apply, asciiString("apply"), 3) })
	t.putStr("construct", func(r *Runtime) Value { return r.methodProp(r.builtin_reflect_construct, asciiString("construct"), 2) })
	t.putStr("defineProperty", func(r *Runtime) Value {
		return r.methodProp(r.builtin_reflect_defineProperty, asciiString("defineProperty"), 3)
	})
	t.putStr("deleteProperty", func(r *Runtime) Value {
		return r.methodProp(r.builtin_reflect_deleteProperty, asciiString("deleteProperty"), 2)
	})
	t.putStr("get", func(r *Runtime) Value { return r.methodProp(r.builtin_reflect_get, asciiString("get"), 2) })
	t.putStr("getOwnPropertyDescriptor", func(r *Runtime) Value {
		return r.methodProp(r.builtin_reflect_getOwnPropertyDescriptor, asciiString("getOwnPropertyDescriptor"), 2)
	})
	t.putStr("getPrototypeOf", func(r *Runtime) Value {
		return r.methodProp(r.builtin_reflect_getPrototypeOf, asciiString("getPrototypeOf"), 1)
	})
	t.putStr("has", func(r *Runtime) Value { return r.methodProp(r.builtin_reflect_has, asciiString("has"), 2) })
	t.putStr("isExtensible", func(r *Runtime) Value {
		return r.methodProp(r.builtin_reflect_isExtensible, asciiString("isExtensible"), 1)
	})
	t.putStr("ownKeys", func(r *Runtime) Value { return r.methodProp(r.builtin_reflect_ownKeys, asciiString("ownKeys"), 1) })
	t.putStr("preventExtensions", func(r *Runtime) Value {
		return r.methodProp(r.builtin_reflect_preventExtensions, asciiString("preventExtensions"), 1)
	})
	t.putStr("set", func(r *Runtime) Value { return r.methodProp(r.builtin_reflect_set, asciiString("set"), 3) })
	t.putStr("setPrototypeOf", func(r *Runtime) Value {
		return r.methodProp(r.builtin_reflect_setPrototypeOf, asciiString("setPrototypeOf"), 2)
	})

	t.putSym(SymToStringTag, func(r *Runtime) Value { return valueProp(asciiString("Reflect"), false, false, true) })

	return t
}

var reflectTemplate *objectTemplate
var reflectTemplateOnce sync.Once

func getReflectTemplate() *objectTemplate {
	reflectTemplateOnce.Do(func() {
		reflectTemplate = createReflectTemplate()
	})
	return reflectTemplate
}

func (r *Runtime) getReflect() *Object {
	ret := r.global.Reflect
	if ret == nil {
		ret = &Object{runtime: r}
		r.global.Reflect = ret
		r.newTemplatedObject(getReflectTemplate(), ret)
	}
	return ret
}
