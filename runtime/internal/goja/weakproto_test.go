package goja

import "testing"

// TestWeakCollectionsBeforePrototype: new WeakMap() and new WeakSet() in a
// realm where nothing has read their prototypes (templates, made on first
// use) get the prototype with its methods.
func TestWeakCollectionsBeforePrototype(t *testing.T) {
	r := New()
	v, err := r.RunString(`var m = new WeakMap(), s = new WeakSet(), k = {}; m.set(k, 1); s.add(k);
		[m.get(k), s.has(k), Object.getPrototypeOf(m) === WeakMap.prototype, Object.getPrototypeOf(s) === WeakSet.prototype].join()`)
	if err != nil || v.String() != "1,true,true,true" {
		t.Fatalf("got %v, %v", v, err)
	}
}
