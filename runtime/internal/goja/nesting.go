package goja

// codemode patch (see PATCHES.md): native recursion is bounded.
//
// Some built-ins recurse on the Go stack once per level of a structure the
// program builds: JSON.stringify (per nested object), JSON.parse (per
// nested array or object of its text), Array.prototype.flat
// (per nested array), and every operation on a proxy whose target or
// handler is a proxy, or on a bound function of a bound function. None of
// them pushes a JavaScript frame, so SetMaxCallStackSize does not bound
// them, and a deep enough structure overflows the goroutine's stack, which
// is fatal to the whole process (Go cannot recover from it). They are
// bounded here by the same limit as JavaScript calls, and fail with the
// RangeError a JavaScript stack overflow raises (catchable).

// maxNativeNesting bounds native nesting when the runtime's call stack is
// unbounded (SetMaxCallStackSize not called).
const maxNativeNesting = 10000

func (r *Runtime) nativeNestingLimit() int {
	if n := r.vm.maxCallStackSize; n > 0 && n < maxNativeNesting {
		return n
	}
	return maxNativeNesting
}

func (r *Runtime) nativeNestingError(what string) *Object {
	return r.newError(r.getRangeError(), "Maximum call stack size exceeded: "+what+" nested too deeply").(*Object)
}

// chainDepth is how many proxies or bound functions an operation on o
// passes through before it reaches an ordinary object.
func chainDepth(o *Object) int {
	if o == nil {
		return 0
	}
	switch s := o.self.(type) {
	case *proxyObject:
		return s.chain
	case *boundFuncObject:
		return s.chain
	}
	return 0
}

// checkChain returns the depth of a new proxy or bound function over the
// given objects, or throws when it is past the limit.
func (r *Runtime) checkChain(what string, objs ...*Object) int {
	d := 0
	for _, o := range objs {
		d = max(d, chainDepth(o))
	}
	d++
	if d > r.nativeNestingLimit() {
		panic(r.nativeNestingError(what))
	}
	return d
}

// flattenNested is flattenIntoArray one level down, bounded.
func (r *Runtime) flattenNested(target, source *Object, sourceLen, start, depth int64) int64 {
	if r.flatNesting >= r.nativeNestingLimit() {
		panic(r.nativeNestingError("Array.prototype.flat: arrays"))
	}
	r.flatNesting++
	defer func() { r.flatNesting-- }()
	return r.flattenIntoArray(target, source, sourceLen, start, depth, nil, nil)
}

// enterJSONNesting counts one more level of JSON.parse's recursive descent,
// which recurses on the Go stack once per nested array or object (a
// 10⁶-deep '[[[…' took ~700 MB of goroutine stack), and returns the
// function that leaves it.
func (r *Runtime) enterJSONNesting() func() {
	if r.jsonNesting >= r.nativeNestingLimit() {
		panic(r.nativeNestingError("JSON.parse: arrays or objects"))
	}
	r.jsonNesting++
	return r.leaveJSONNesting
}

func (r *Runtime) leaveJSONNesting() { r.jsonNesting-- }
