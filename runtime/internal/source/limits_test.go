package source

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/goja/ast"
	parser "github.com/codemode/codemode/runtime/internal/jsparse"
	"github.com/codemode/codemode/tools/errs"
)

func TestLimits(t *testing.T) {
	deep := func(open, close string, n int) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	tests := []struct {
		name string
		code string
		want errs.Code // "" = prepared
	}{
		{"300k nested arrays", "return " + deep("[", "]", 300_000), errs.CodeNestingTooDeep},
		{"nested parens", "return " + deep("(", ")", 5000), errs.CodeNestingTooDeep},
		{"nested blocks", deep("{", "}", 5000), errs.CodeNestingTooDeep},
		{"nested templates", "return " + strings.Repeat("`${", 5000) + "1" + strings.Repeat("}`", 5000), errs.CodeNestingTooDeep},
		{"arrow chain", "return " + strings.Repeat("a=>", 5000) + "1", errs.CodeNestingTooDeep},
		{"&& chain", "return a" + strings.Repeat("&&a", 5000), errs.CodeNestingTooDeep},
		{"unterminated", "return " + strings.Repeat("[", 5000), errs.CodeNestingTooDeep},
		{"arrows in defaults, 2^n", "return " + strings.Repeat("(a=", 40) + "1" + strings.Repeat(")=>1", 40), errs.CodeNestingTooDeep},
		{"deep after a TypeScript annotation", "let x: number = 1;\nreturn " + deep("[", "]", 5000), errs.CodeNestingTooDeep},
		{"TypeScript over the esbuild size bound", "let x: number = 1;\nreturn [" + strings.Repeat("1,", 9000) + "1]", errs.CodeSyntaxError},
		{"TypeScript with too many arrows", "let x: number = 1;\n" + strings.Repeat("f(a=>a);", 300), errs.CodeSyntaxError},
		{"500 levels is fine", "return " + deep("[", "]", 500), ""},
		{"a long flat array is fine", "return [" + strings.Repeat("1,", 50_000) + "1]", ""},
		{"small TypeScript is still stripped", "let x: number = 1;\nreturn [[x]]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, persistent := range []bool{false, true} {
				start := time.Now()
				_, err := Prepare(tt.code, Options{Persistent: persistent})
				if got := errs.CodeOf(err); got != tt.want {
					t.Fatalf("persistent=%v: got %q (%v), want %q", persistent, got, err, tt.want)
				}
				if tt.want == errs.CodeNestingTooDeep {
					e := errs.AsError(err)
					if _, ok := e.Info["line"]; !ok {
						t.Errorf("no line in %v", e.Info)
					}
				}
				// Not a timing assertion: a guard that fails shows as minutes.
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("took %s", d)
				}
			}
		})
	}
}

// FuzzLimits builds programs from fragments that nest, break off, or hide
// brackets in strings, comments, templates and regular expressions. Prepare
// must never crash, and must agree with goja's own parser on every program
// within the limit: same verdict, and NESTING_TOO_DEEP only for programs
// whose tree really is that deep.
func FuzzLimits(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 1, 1}, uint16(40))
	f.Add([]byte{2, 3, 4, 5, 6, 7, 8, 9, 10}, uint16(200))
	f.Add([]byte{11, 12, 13, 14, 15, 16, 17}, uint16(3000))
	frags := []string{"[", "]", "(", ")", "{", "}", "`${", "}`", "'[(", "\")]\"", "/[(]/", "//([\n", "/*[(*/",
		"a=>", "!", "a+", "a?.", "a?a:", ";", ",", "\n", "x = a / b;", "if(a)", "`[`", "return ", "1", "a", "=", "/"}
	const limit = 64
	f.Fuzz(func(t *testing.T, pattern []byte, reps uint16) {
		if len(pattern) == 0 || len(pattern) > 64 {
			return
		}
		var b strings.Builder
		for i := 0; i < int(reps%4000)+1; i++ {
			b.WriteString(frags[int(pattern[i%len(pattern)])%len(frags)])
			if b.Len() > 20_000 {
				break
			}
		}
		code := b.String()
		s, err := Prepare(code, Options{MaxNestingDepth: limit})
		if err == nil && s.TypeScript {
			return // esbuild accepted what goja rejects (`a!` is TypeScript); the evaluator decides
		}
		code2 := errs.CodeOf(err)
		if code2 != "" && code2 != errs.CodeSyntaxError && code2 != errs.CodeNestingTooDeep {
			t.Fatalf("got %v", err)
		}
		wrapped := perCallPrefix + code + perCallSuffix
		if code2 == errs.CodeNestingTooDeep {
			// The tree must be deep: goja's parser either fails (the
			// program is broken past the point we stopped) or yields a
			// tree deeper than a quarter of the limit.
			prg, perr := parser.ParseFile(nil, "", wrapped, 0, parser.WithDisableSourceMaps)
			if perr == nil {
				if d := treeDepth(prg); d < limit/4 {
					t.Fatalf("NESTING_TOO_DEEP for a tree %d deep:\n%.300s", d, code)
				}
			}
			return
		}
		// Within the limit, goja's parser may run: it must agree.
		var te *errs.Error
		if errors.As(err, &te) && te.Code == errs.CodeSyntaxError && strings.Contains(te.Message, "TypeScript") {
			return
		}
		_, perr := parser.ParseFile(nil, "", wrapped, 0, parser.WithDisableSourceMaps)
		if (perr == nil) != (err == nil) {
			if err != nil && te != nil && te.Code == errs.CodeSyntaxError {
				return // esbuild may accept what goja rejects and the reverse; the evaluator decides
			}
			t.Fatalf("Prepare: %v; goja: %v\n%.300s", err, perr, code)
		}
	})
}

// treeDepth is the depth of an AST, by reflection over its node fields.
func treeDepth(n any) int {
	type item struct {
		v reflect.Value
		d int
	}
	max := 0
	stack := []item{{reflect.ValueOf(n), 1}}
	nodeType := reflect.TypeOf((*ast.Node)(nil)).Elem()
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v := it.v
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v = reflect.Value{}
				break
			}
			v = v.Elem()
		}
		if !v.IsValid() {
			continue
		}
		d := it.d
		if v.CanAddr() && v.Addr().Type().Implements(nodeType) {
			d++
			if d > max {
				max = d
			}
		}
		switch v.Kind() {
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					stack = append(stack, item{v.Field(i), d})
				}
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				stack = append(stack, item{v.Index(i), d})
			}
		}
	}
	return max
}
