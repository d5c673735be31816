package goja

// codemode patch (see PATCHES.md): the built-ins that allocate by a size
// the program sets ask the embedder first, from inside the built-in, at
// the point where the size is known and nothing has been allocated yet.
// The embedder's check throws (panics with a goja value) to refuse. Without
// a check set, nothing changes.

// SizeCheck is called with what is about to be allocated (bytes; buffer
// is true for ArrayBuffer and typed-array memory) and refuses by panicking
// with a goja value, as a native function throws.
type SizeCheck func(what string, bytes float64, buffer bool)

// TypedArraySource is called by a typed-array constructor given an object
// that is neither an ArrayBuffer nor a typed array (an iterable or an
// array-like), with the constructor's name and element size; the
// constructor then reads the object it returns instead (the embedder
// iterates in JavaScript, where an interrupt reaches, and hands back a
// snapshot).
type TypedArraySource func(what string, bytesPer int, arg *Object) *Object

// SetSizeCheck sets the runtime's size check (nil for none).
func (r *Runtime) SetSizeCheck(f SizeCheck) { r.sizeCheck = f }

// SetTypedArraySource sets the typed-array constructors' source hook (nil
// for none).
func (r *Runtime) SetTypedArraySource(f TypedArraySource) { r.typedArraySource = f }

func (r *Runtime) checkSize(what string, bytes float64, buffer bool) {
	if r.sizeCheck != nil && bytes > 0 {
		r.sizeCheck(what, bytes, buffer)
	}
}

// typedArrayWhat names a typed array's constructor for a refusal.
func typedArrayWhat(ta *typedArrayObject) string {
	switch ta.typedArray.(type) {
	case *uint8Array:
		return "new Uint8Array()"
	case *uint8ClampedArray:
		return "new Uint8ClampedArray()"
	case *int8Array:
		return "new Int8Array()"
	case *uint16Array:
		return "new Uint16Array()"
	case *int16Array:
		return "new Int16Array()"
	case *uint32Array:
		return "new Uint32Array()"
	case *int32Array:
		return "new Int32Array()"
	case *float32Array:
		return "new Float32Array()"
	case *float16Array:
		return "new Float16Array()"
	case *float64Array:
		return "new Float64Array()"
	case *bigInt64Array:
		return "new BigInt64Array()"
	case *bigUint64Array:
		return "new BigUint64Array()"
	}
	return "new TypedArray()"
}

// joinChecked is Array.prototype.join's steps after the length and the
// separator, with the size checked before the result is built: each
// element is read and converted once, the parts kept, their total checked
// as it grows (goja's own join writes as it reads, in one call nothing
// interrupts).
func (r *Runtime) joinChecked(o *Object, l int, sep String) Value {
	sepLen := float64(sep.Length())
	r.checkSize("join()", float64(l)*(8+sepLen)*2, false) // the parts themselves, and the separators
	var small [16]String                                  // most joins: no slice to allocate
	var parts []String
	if l <= len(small) {
		parts = small[:l]
	} else {
		parts = make([]String, l)
	}
	total := sepLen * float64(l-1)
	for i := range l {
		e := o.self.getIdx(valueInt(int64(i)), nil)
		if e == nil || e == _undefined || e == _null {
			continue
		}
		s := e.toString()
		parts[i] = s
		total += float64(s.Length())
		r.checkSize("join()", total*2, false)
	}
	var b StringBuilder
	b.Grow(int(total))
	for i, s := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		if s != nil {
			b.WriteString(s)
		}
	}
	return b.String()
}

// iterableSize is what Array.from can tell of an iterable's length before
// iterating it: an array's length (read through a proxy of one: a sparse
// array's iteration is native and visits every index), a typed array's, a
// string's; 0 for anything else, whose iteration runs the program's code
// (where an interrupt reaches) or is bounded by what already exists.
func (r *Runtime) iterableSize(items Value) float64 {
	switch v := items.(type) {
	case String:
		return float64(v.Length())
	case *Object:
		if ta, ok := v.self.(*typedArrayObject); ok {
			return float64(ta.len()) // codemode patch: len
		}
		if isArray(v) {
			return float64(toLength(v.self.getStr("length", nil)))
		}
	}
	return 0
}

// SetArrayValuesAlias names the embedder's replacement of
// Array.prototype.values (a guard that behaves as the built-in for a
// dense array): the built-ins' fast paths for a plain array with the
// standard iterator (Array.from, new Set, new WeakSet) take an array
// whose iterator is alias too, while %ArrayIteratorPrototype%.next is
// still the built-in's (as the spec's steps would call it; upstream's
// fast path does not look), so the copy is what the iteration would give.
// (Whether next is the built-in's is known without building the
// prototype: it is made with its built-in next, stdArrayIterNext.)
func (r *Runtime) SetArrayValuesAlias(alias *Object) {
	r.valuesAlias = alias
}

// IsArrayValues reports whether iterating with method is the built-in
// array iteration: method is Array.prototype.values as built (or the
// embedder's alias of it) and %ArrayIteratorPrototype%.next is still the
// built-in's own data property. Nothing is built to answer, and no
// program code runs.
func (r *Runtime) IsArrayValues(method Value) bool {
	if method == nil || method != r.global.arrayValues && (r.valuesAlias == nil || method != r.valuesAlias) {
		return false
	}
	return r.stdArrayIterNext()
}

// stdArrayIterNext reports whether %ArrayIteratorPrototype%.next is the
// built-in's (as it is while the prototype is not built).
func (r *Runtime) stdArrayIterNext() bool {
	if r.global.ArrayIteratorPrototype == nil {
		return true
	}
	return r.arrayIterNext != nil && r.arrayIterProtoNext() == r.arrayIterNext
}

// arrayIterProtoNext is the value of %ArrayIteratorPrototype%'s own data
// property next (nil for an accessor, or none), read without running code.
func (r *Runtime) arrayIterProtoNext() Value {
	v := r.getArrayIteratorPrototype().self.getOwnPropStr("next")
	if p, ok := v.(*valueProperty); ok {
		if p.accessor {
			return nil
		}
		return p.value
	}
	return v
}

func (r *Runtime) isValuesAlias(iter Value, arr *arrayObject) bool {
	return r.valuesAlias != nil && iter == r.valuesAlias && int(arr.length) == len(arr.values) &&
		r.stdArrayIterNext()
}
