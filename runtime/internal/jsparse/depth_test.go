package jsparse

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"
)

// nestings are the shapes that make goja's parser or compiler recurse or
// chain: each builds a program nested n levels deep.
var nestings = []struct {
	name string
	make func(n int) string
}{
	{"array", func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }},
	{"paren", func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }},
	{"object", func(n int) string { return "x=" + strings.Repeat("{a:", n) + "1" + strings.Repeat("}", n) }},
	{"block", func(n int) string { return strings.Repeat("{", n) + strings.Repeat("}", n) }},
	{"template", func(n int) string { return strings.Repeat("`${", n) + "1" + strings.Repeat("}`", n) }},
	{"spread", func(n int) string { return strings.Repeat("[...", n) + "a" + strings.Repeat("]", n) }},
	{"destructuring", func(n int) string { return "var " + strings.Repeat("[", n) + "a" + strings.Repeat("]", n) + "=a" }},
	{"object pattern", func(n int) string { return "var " + strings.Repeat("{a:", n) + "a" + strings.Repeat("}", n) + "=a" }},
	{"arrow", func(n int) string { return strings.Repeat("a=>", n) + "1" }},
	{"arrow block", func(n int) string { return strings.Repeat("a=>{return ", n) + "1" + strings.Repeat("}", n) }},
	{"function", func(n int) string { return strings.Repeat("function f(){", n) + strings.Repeat("}", n) }},
	{"call args", func(n int) string { return strings.Repeat("f(", n) + strings.Repeat(")", n) }},
	{"member index", func(n int) string { return strings.Repeat("a[", n) + "0" + strings.Repeat("]", n) }},
	{"not", func(n int) string { return strings.Repeat("!", n) + "a" }},
	{"minus", func(n int) string { return strings.Repeat("- ", n) + "a" }},
	{"typeof", func(n int) string { return strings.Repeat("typeof ", n) + "a" }},
	{"await", func(n int) string { return "(async function(){" + strings.Repeat("await ", n) + "1})" }},
	{"new", func(n int) string { return strings.Repeat("new ", n) + "a" }},
	{"prefix increment", func(n int) string { return strings.Repeat("++", n) + "a" }},
	{"assign", func(n int) string { return strings.Repeat("a=", n) + "1" }},
	{"conditional", func(n int) string { return strings.Repeat("a?a:", n) + "1" }},
	{"exponent", func(n int) string { return "a" + strings.Repeat("**a", n) }},
	{"relational", func(n int) string { return "a" + strings.Repeat("<a", n) }},
	{"plus chain", func(n int) string { return "a" + strings.Repeat("+a", n) }},
	{"and chain", func(n int) string { return "a" + strings.Repeat("&&a", n) }},
	{"or chain", func(n int) string { return "a" + strings.Repeat("||a", n) }},
	{"nullish chain", func(n int) string { return "a" + strings.Repeat("??a", n) }},
	{"equality chain", func(n int) string { return "a" + strings.Repeat("==a", n) }},
	{"member chain", func(n int) string { return "a" + strings.Repeat(".a", n) }},
	{"optional chain", func(n int) string { return "a" + strings.Repeat("?.a", n) }},
	{"call chain", func(n int) string { return "a" + strings.Repeat("()", n) }},
	{"tagged chain", func(n int) string { return "a" + strings.Repeat("``", n) }},
	{"if", func(n int) string { return strings.Repeat("if(a)", n) + ";" }},
	{"else if", func(n int) string { return "if(a);" + strings.Repeat("else if(a);", n) }},
	{"for", func(n int) string { return strings.Repeat("for(;;)", n) + ";" }},
	{"label", func(n int) string { return strings.Repeat("a:", n) + ";" }},
	{"class heritage", func(n int) string {
		return "x=" + strings.Repeat("class extends ", n) + "a{}" + strings.Repeat("{}", n)
	}},
	{"default params", func(n int) string { return strings.Repeat("(a=", n) + "1" + strings.Repeat(")=>1", n) }},
	{"unterminated", func(n int) string { return strings.Repeat("[", n) }},
}

// TestDepthGuard checks that no shape nests past the guard, with a Go stack
// small enough that an unguarded recursion would crash the test binary.
func TestDepthGuard(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	const limit = 1000
	for _, tc := range nestings {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.make(200_000)
			_, err := ParseFile(nil, "", src, 0, WithMaxDepth(limit), WithDisableSourceMaps)
			var ne *NestingError
			if !errors.As(err, &ne) {
				t.Fatalf("200k levels: got %v, want a *NestingError", err)
			}
			if ne.Limit != limit {
				t.Errorf("got limit %d, want %d", ne.Limit, limit)
			}
		})
	}
}

// TestDepthWithinLimit checks that ordinary nesting parses as before.
func TestDepthWithinLimit(t *testing.T) {
	for _, tc := range nestings {
		if tc.name == "unterminated" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			n := 100
			if tc.name == "default params" {
				n = 5
			}
			src := tc.make(n)
			_, err := ParseFile(nil, "", src, 0, WithMaxDepth(1000), WithDisableSourceMaps)
			var ne *NestingError
			if errors.As(err, &ne) {
				t.Fatalf("100 levels refused at limit 1000: %v", err)
			}
			_, plain := ParseFile(nil, "", src, 0, WithDisableSourceMaps)
			if (err == nil) != (plain == nil) {
				t.Fatalf("with the guard: %v; without: %v", err, plain)
			}
		})
	}
}

// TestDepthUnits reports how many levels one nesting step costs, so the
// documented limit can say what it means in brackets.
func TestDepthUnits(t *testing.T) {
	for _, tc := range nestings {
		t.Run(tc.name, func(t *testing.T) {
			// The smallest n that the limit refuses, by bisection.
			lo, hi := 1, 2000
			for lo < hi {
				mid := (lo + hi) / 2
				_, err := ParseFile(nil, "", tc.make(mid), 0, WithMaxDepth(1000), WithDisableSourceMaps)
				var ne *NestingError
				if errors.As(err, &ne) {
					hi = mid
				} else {
					lo = mid + 1
				}
			}
			t.Logf("%-18s refused from %d levels", tc.name, lo)
			want := 300
			if tc.name == "default params" {
				want = 5 // 2^n re-parsing, bounded by the token budget
			}
			if lo < want {
				t.Errorf("%s: refused from %d levels at limit 1000; want at least %d", tc.name, lo, want)
			}
		})
	}
}
