package goja

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// codemode patch (see PATCHES.md): the allocation checks (alloc.go).

var errTooMuch = errors.New("too much")

// TestAllocationCheckRefuses: each built-in that allocates in proportion
// to its input asks the check before its result outgrows the limit, and a
// refusal ends the script as an uncatchable interrupt holding the error
// (try/catch does not see it).
func TestAllocationCheckRefuses(t *testing.T) {
	const limit = 4 << 20
	for name, src := range map[string]string{
		"+":            `let s = 'x'; for (;;) s = s + s`,
		"+=":           `let s = 'x'; for (;;) s += s`,
		"+ unicode":    `let s = 'é'; for (;;) s = s + s`,
		"template":     "let s = 'x'; for (;;) s = `${s}${s}`",
		"concat":       `let s = 'x'; for (;;) s = s.concat(s)`,
		"repeat":       `'x'.repeat(1 << 24)`,
		"padStart":     `'x'.padStart(1 << 24)`,
		"padEnd":       `'é'.padEnd(1 << 23, 'ü')`,
		"stringify":    `JSON.stringify(Array(64).fill('x'.repeat(1 << 20)))`,
		"replace":      `'ab'.repeat(1 << 19).replace(/a/g, '$&$&$&$&$&$&$&$&')`,
		"replaceAll":   `'ab'.repeat(1 << 19).replaceAll('a', 'aaaaaaaa')`,
		"replace fn":   `'ab'.repeat(1 << 19).replace(/a/g, () => 'aaaaaaaa')`,
		"split":        `'x'.repeat(1 << 20).split('')`,
		"split utf-16": `'é'.repeat(1 << 20).split('')`,
		"catch":        `let s = 'x'; try { for (;;) s = s + s } catch (e) { 'caught' }`,
	} {
		t.Run(name, func(t *testing.T) {
			r := New()
			r.SetAllocationCheck(64<<10, func(n int64) error {
				if n > limit {
					return errTooMuch
				}
				return nil
			})
			v, err := r.RunString(src)
			var ie *InterruptedError
			if !errors.As(err, &ie) || !errors.Is(err, errTooMuch) {
				t.Fatalf("got %v, %v; want an interrupt holding the check's error", v, err)
			}
		})
	}
}

// TestAllocationCheckAllows: within the limit nothing changes, and small
// allocations are not asked about.
func TestAllocationCheckAllows(t *testing.T) {
	r := New()
	asked := 0
	r.SetAllocationCheck(1<<20, func(n int64) error {
		asked++
		if n < 1<<20 {
			t.Errorf("asked about %d bytes, under the minimum", n)
		}
		return nil
	})
	v, err := r.RunString(`let s = 'x'; for (let i = 0; i < 22; i++) s = s + s;
		[s.length, JSON.stringify([s]).length, s.replace(/x/g, 'yy').length, 'a,b'.split(',').length].join()`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), "4194304,4194308,8388608,2"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if asked == 0 {
		t.Error("never asked")
	}
}

// TestInterruptStopsBuiltins: an interrupt pending when a built-in reaches
// an allocation point unwinds it there (a runtime interrupted at its
// deadline inside a long built-in used to allocate on until it returned).
// The built-ins are called from Go, so no instruction of the VM's loop,
// which also honours the interrupt, runs between.
func TestInterruptStopsBuiltins(t *testing.T) {
	for name, c := range map[string]struct{ fn, arg string }{
		"stringify": {"JSON.stringify", `Array(1e5).fill('x')`},
		"parse":     {"JSON.parse", `'[' + Array(1e5).fill('[]').join() + ']'`},
		"repeat":    {"(s => s.repeat(1e6))", `'x'`},
	} {
		t.Run(name, func(t *testing.T) {
			r := New()
			fv, err := r.RunString(c.fn)
			if err != nil {
				t.Fatal(err)
			}
			arg, err := r.RunString(c.arg)
			if err != nil {
				t.Fatal(err)
			}
			f, _ := AssertFunction(fv)
			if _, err := f(Undefined(), arg); err != nil {
				t.Fatalf("uninterrupted: %v", err)
			}
			r.Interrupt(errTooMuch)
			v, err := f(Undefined(), arg)
			if !errors.Is(err, errTooMuch) {
				t.Fatalf("got %.20v, %v; want the interrupt", v, err)
			}
		})
	}
}

// TestJSONParseNesting: JSON.parse's recursive descent is bounded like
// JavaScript recursion (it used to take ~700 MB of goroutine stack for a
// 10⁶-deep array).
func TestJSONParseNesting(t *testing.T) {
	r := New()
	r.SetMaxCallStackSize(1000)
	v, err := r.RunString(`try { JSON.parse('['.repeat(1e6) + ']'.repeat(1e6)); 'parsed' } catch (e) { e instanceof RangeError && e.message }`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(v.String(), "Maximum call stack size exceeded") {
		t.Errorf("got %v", v)
	}
	v, err = r.RunString(`JSON.parse('['.repeat(999) + ']'.repeat(999)).length`)
	if err != nil || v.ToInteger() != 1 {
		t.Errorf("999 levels: %v, %v", v, err)
	}
}

// TestFindAllChecked: collecting the matches of a long string a chunk at
// a time finds what one call of Go's regexp finds.
func TestFindAllChecked(t *testing.T) {
	r := New()
	subject := asciiString(strings.Repeat("ab aab  b123 a\nxyz", 1<<13)) // 144 KiB
	for _, src := range []string{`/a/g`, `/a*/g`, `/x*/g`, `/(a)(b)?/g`, `/\d+/g`, `/$/g`, `/a|/g`, `/(?:)/g`, `/b$/gm`, `/^a/gm`, `/\bab/g`, `/[^ ]*/g`} {
		v, err := r.RunString(src)
		if err != nil {
			t.Fatal(err)
		}
		p := v.(*Object).self.(*regexpObject).pattern
		want := p.findAllSubmatchIndex(subject, 0, -1, false)
		got := p.findAllChecked(r, subject, 0, -1, false)
		if len(got) != len(want) {
			t.Errorf("%s: %d matches, want %d", src, len(got), len(want))
			continue
		}
		for i := range want {
			if fmt.Sprint(got[i].indexes) != fmt.Sprint(want[i].indexes) {
				t.Errorf("%s: match %d at %v, want %v", src, i, got[i].indexes, want[i].indexes)
				break
			}
		}
	}
}

// BenchmarkSmallStrings is the allocation checks' cost on the hot path:
// concatenations, template literals and JSON.stringify of small values,
// all below the check's minimum (the interrupt flag is still read).
func BenchmarkSmallStrings(b *testing.B) {
	r := New()
	r.SetAllocationCheck(1<<18, func(int64) error { return nil })
	p := MustCompile("bench", `{ let n = 0
for (let i = 0; i < 1000; i++) { const s = 'k' + i; const t = `+"`${s}:${i}`"+`; n += s.length + t.length + JSON.stringify({ s }).length }
n }`, false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.RunProgram(p); err != nil {
			b.Fatal(err)
		}
	}
}

// An array growing past the check's minimum asks before it allocates its
// bigger backing slice (expand), and a refusal ends the script there.
func TestArrayGrowthChecked(t *testing.T) {
	r := New()
	var asked []int64
	r.SetAllocationCheck(1<<20, func(n int64) error {
		asked = append(asked, n)
		if n > 8<<20 {
			return errors.New("over budget")
		}
		return nil
	})
	_, err := r.RunString(`const a = []; for (let i = 0; i < 1e6; i++) a.push(i); a.length`)
	var ie *InterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want the check's refusal as an interrupt", err)
	}
	if len(asked) == 0 || asked[0] < 1<<20 {
		t.Fatalf("asked %v", asked)
	}
	for _, n := range asked[:len(asked)-1] {
		if n > 8<<20 {
			t.Fatalf("asked %v: went on past a refusal", asked)
		}
	}
}
