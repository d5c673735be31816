package goja

import "sort"

// codemode patch (see PATCHES.md): Array.prototype.sort and toSorted.
//
// goja sorted in place with sort.Stable, converting both elements to
// strings at every comparison when there is no comparator (two allocations
// per comparison: 1.5·10⁶ numbers made ~6·10⁷ strings of garbage), and
// nothing in the sort polled the interrupt, so a sort outlived its run's
// deadline by seconds. sortValues polls the interrupt (and the yield clock)
// every 1024 comparisons, and without a comparator, when every element is a
// primitive other than a symbol, converts each element to its string once
// and sorts those keys. ToString of such a value calls no program code, so
// the program cannot tell how often it ran; the order is the one
// SortCompare gives (holes last, undefined before them, the rest by the
// UTF-16 code units of their strings, stable).

// keyedValue is an element and its string key.
type keyedValue struct {
	key String
	v   Value
}

// sortValues sorts s as Array.prototype.sort does with compareFn (nil: the
// default order).
func (r *Runtime) sortValues(s sortable, compareFn func(FunctionCall) Value) {
	if compareFn == nil {
		if a, ok := s.(*arrayObject); ok && r.sortByKeys(a) {
			return
		}
	}
	ctx := arraySortCtx{obj: s, compare: compareFn, r: r}
	sort.Stable(&ctx)
}

// sortByKeys sorts a dense array of primitives by their strings, computed
// once each, and reports whether it could: false, having changed nothing,
// when an element is an object, a symbol or an accessor.
func (r *Runtime) sortByKeys(a *arrayObject) bool {
	vals := a.values
	undef, holes := 0, 0
	for _, v := range vals {
		switch v.(type) {
		case nil:
			holes++
		case valueUndefined:
			undef++
		case valueInt, valueFloat, asciiString, unicodeString, *importedString, valueBool, valueNull, *valueBigInt:
		default: // an object, a symbol, an accessor
			return false
		}
	}
	n := len(vals) - undef - holes
	if n < 2 {
		return false // nothing to order: the generic path costs nothing here
	}
	// The keys and the elements beside them: 32 bytes each, plus the
	// strings of numbers (about 24 bytes for a double's shortest form).
	r.checkAlloc(int64(n) * 56)
	kv := make([]keyedValue, 0, n)
	for i, v := range vals {
		if v == nil || v == _undefined {
			continue
		}
		kv = append(kv, keyedValue{v.toString(), v})
		r.pollInterrupt(i + 1)
	}
	c := 0
	sort.SliceStable(kv, func(i, j int) bool {
		c++
		r.pollInterrupt(c)
		return kv[i].key.CompareTo(kv[j].key) < 0
	})
	// The array is written only once the sort is done: an interrupt above
	// leaves it as it was.
	i := 0
	for _, e := range kv {
		vals[i] = e.v
		i++
	}
	for ; undef > 0; undef-- {
		vals[i] = _undefined
		i++
	}
	for ; i < len(vals); i++ {
		vals[i] = nil
	}
	return true
}
