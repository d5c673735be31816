package goja

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestYieldInterval(t *testing.T) {
	var n atomic.Int64
	old := gosched
	gosched = func() { n.Add(1); old() }
	defer func() { gosched = old }()

	for _, tc := range []struct {
		name  string
		every time.Duration
		want  bool
	}{
		{"off", 0, false},
		{"on", time.Nanosecond, true},
		{"longer than the script", time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n.Store(0)
			r := New()
			r.SetYieldInterval(tc.every)
			v, err := r.RunString(`let s = 0; for (let i = 0; i < 200000; i++) s += i; s`)
			if err != nil {
				t.Fatal(err)
			}
			if v.ToInteger() != 19999900000 {
				t.Fatalf("result %v", v)
			}
			if got := n.Load() > 0; got != tc.want {
				t.Errorf("yielded %d times, want any: %v", n.Load(), tc.want)
			}
		})
	}
}

// BenchmarkYieldInterval is a tight loop with and without the yield check
// (at 1ms, as codemode's goja engine sets it).
func BenchmarkYieldInterval(b *testing.B) {
	for _, every := range []time.Duration{0, time.Millisecond} {
		b.Run(every.String(), func(b *testing.B) {
			r := New()
			r.SetYieldInterval(every)
			prg := MustCompile("", `(function () { let s = 0; for (let i = 0; i < 100000; i++) s += i; return s })()`, false)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.RunProgram(prg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// After ResetYieldClock the interval starts again at the next check: a
// script that resumes after a wait does not yield at once.
func TestResetYieldClock(t *testing.T) {
	var n atomic.Int64
	old := gosched
	gosched = func() { n.Add(1); old() }
	defer func() { gosched = old }()
	r := New()
	r.SetYieldInterval(time.Hour)
	r.vm.yieldLast = time.Now().Add(-2 * time.Hour) // as if it had waited
	r.ResetYieldClock()
	if _, err := r.RunString(`let s = 0; for (let i = 0; i < 200000; i++) s += i`); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 0 {
		t.Errorf("yielded %d times after a reset", n.Load())
	}
}

// copyValues copies what copy copies, and checks the yield clock between
// chunks: an array grown past a chunk by push yields during the copy.
func TestCopyValues(t *testing.T) {
	var n atomic.Int64
	old := gosched
	gosched = func() { n.Add(1); old() }
	defer func() { gosched = old }()

	r := New()
	for _, size := range []int{0, 1, copyChunk - 1, copyChunk, copyChunk + 1, 3*copyChunk + 5} {
		for _, every := range []time.Duration{0, time.Nanosecond} {
			r.SetYieldInterval(every)
			n.Store(0)
			src := make([]Value, size)
			for i := range src {
				src[i] = valueInt(i)
			}
			dst := make([]Value, size+2)
			if got := r.copyValues(dst, src); got != size {
				t.Fatalf("size %d: copied %d", size, got)
			}
			for i := range src {
				if dst[i] != src[i] {
					t.Fatalf("size %d: dst[%d] = %v", size, i, dst[i])
				}
			}
			if dst[size] != nil || dst[size+1] != nil {
				t.Fatalf("size %d: wrote past the source", size)
			}
			if wantYield := every > 0 && size > copyChunk; (n.Load() > 0) != wantYield {
				t.Errorf("size %d, interval %v: yielded %d times", size, every, n.Load())
			}
		}
	}

	// Through push: an array grown past a chunk keeps every element.
	r.SetYieldInterval(time.Nanosecond)
	v, err := r.RunString(`const a = []; for (let i = 0; i < 50000; i++) a.push(i); let ok = a.length === 50000; for (let i = 0; i < a.length; i++) if (a[i] !== i) ok = false; ok`)
	if err != nil || !v.ToBoolean() {
		t.Fatalf("push: %v %v", v, err)
	}
}
