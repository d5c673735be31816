package gojaengine

import (
	"strconv"

	"github.com/codemode/codemode/runtime/internal/goja"
)

// join is Array.prototype.join for the prelude (see glue.js), under the
// memory budget: it reads each of the n elements of o once, converts each
// once, and refuses with a RangeError, before building anything, a result
// the budget cannot hold. goja's own join writes as it reads, so joining
// 64 copies of an 8 MiB string allocated half a gigabyte inside one
// built-in call, where the heap watchdog cannot interrupt.
func (v *vm) join(o *goja.Object, n int64, sepV goja.Value, rangeError goja.Value) goja.Value {
	rt := v.rt
	sep, err := v.toString(sepV)
	if err != nil {
		panic(err)
	}
	if n <= 0 {
		return rt.ToValue("")
	}
	refuse := func(units float64) {
		if msg := v.reserve("join()", units*2, false); msg != "" {
			e, err := rt.New(rangeError, rt.ToValue(msg))
			if err != nil {
				panic(rt.NewGoError(err))
			}
			panic(e)
		}
	}
	sepLen := float64(sep.Length())
	refuse(float64(n) * (8 + sepLen)) // the parts themselves, and the separators
	parts := make([]goja.String, n)
	total := sepLen * float64(n-1)
	for i := range n {
		e := o.Get(strconv.FormatInt(i, 10))
		if e == nil || goja.IsUndefined(e) || goja.IsNull(e) {
			continue
		}
		s, err := v.toString(e)
		if err != nil {
			panic(err)
		}
		parts[i] = s
		total += float64(s.Length())
		refuse(total)
	}
	var b goja.StringBuilder
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

// toString is ToString: an object's conversion (program code) runs once.
func (v *vm) toString(x goja.Value) (goja.String, *goja.Object) {
	if s, ok := x.(goja.String); ok {
		return s, nil
	}
	p := x.ToString() // the primitive; a string, or a number, boolean, …
	if s, ok := p.(goja.String); ok {
		return s, nil
	}
	if _, ok := p.(*goja.Symbol); ok {
		return nil, v.rt.NewTypeError("Cannot convert a Symbol value to a string")
	}
	return v.rt.ToValue(p.String()).(goja.String), nil
}
