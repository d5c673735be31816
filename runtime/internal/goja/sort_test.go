package goja

import (
	"testing"
	"time"
)

// The keyed sort orders as the comparison-by-comparison sort does: holes
// last, undefined before them, the rest by their strings, stable.
func TestSortByKeys(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"numbers", `[10, 9, 1, 100, -1, 0.5, -0, 1e21, NaN, Infinity].sort().join()`, "-1,0,0.5,1,10,100,1e+21,9,Infinity,NaN"},
		{"strings", `["b", "a", "é", "Z", "aa", "", "\uD83D\uDE00", "\uFFFF"].sort().join("|")`, "|Z|a|aa|b|é|\U0001F600|\uFFFF"}, // UTF-16 code units: 0xD83D < 0xFFFF
		{"mixed primitives", `[true, null, 2n, "null", 1, false, "1"].sort().map(String).join()`, "1,1,2,false,null,null,true"},
		{"stable among equal keys", `[1, "1", 1.0, "01", "1"].sort().map(x => typeof x).join()`, "string,number,string,number,string"},
		{"holes and undefined last", `const a = [3, , undefined, 1, , undefined, 2]; a.sort(); [a.length, 4 in a, 5 in a, 6 in a, a[3], a[4]].join()`, "7,true,false,false,,"},
		{"an object falls back", `[3, {toString() { return "2" }}, 1].sort().map(String).join()`, "1,2,3"},
		{"a symbol throws as before", `try { [Symbol(), 1].sort(); "no" } catch (e) { e.constructor.name }`, "TypeError"},
		{"toSorted", `const a = [3, 1, 2]; [a.toSorted().join(), a.join()].join("/")`, "1,2,3/3,1,2"},
		{"a comparator is used", `[3, 1, 2].sort((x, y) => y - x).join()`, "3,2,1"},
		{"an accessor element falls back", `const a = [2, 1]; Object.defineProperty(a, 0, { get() { return 3 }, configurable: true }); try { a.sort(); } catch (e) {} [a[0], a[1]].join()`, "3,3"}, // what goja gave before the patch
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New().RunString(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// A long sort, with or without a comparator, stops at an interrupt.
func TestSortInterrupt(t *testing.T) {
	for _, src := range []string{
		`const a = []; for (let i = 0; i < 3e5; i++) a.push(Math.random()); for (;;) a.sort()`,
		`const a = []; for (let i = 0; i < 3e5; i++) a.push({ v: Math.random() }); for (;;) a.sort()`,
		`const a = []; for (let i = 0; i < 3e5; i++) a.push(Math.random()); for (;;) a.sort((x, y) => x - y)`,
	} {
		r := New()
		time.AfterFunc(300*time.Millisecond, func() { r.Interrupt("stop") })
		done := make(chan error, 1)
		go func() { _, err := r.RunString(src); done <- err }()
		select {
		case err := <-done:
			if _, ok := err.(*InterruptedError); !ok {
				t.Fatalf("%s: %v", src, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: not interrupted", src)
		}
	}
}
