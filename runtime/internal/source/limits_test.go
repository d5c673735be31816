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

// Programs over esbuild's limits that goja's parser rejects: QuickJS's own
// parser decides per call on wazero (the script is the native wrapper);
// goja and persistent mode get a SYNTAX_ERROR that names the limit.
func TestOverLimits(t *testing.T) {
	pad := strings.Repeat("x = [1, 2, 3];\n", 1200) // 18 KiB
	arrows := strings.Repeat("f(a => a);\n", 300)
	type mode struct {
		persistent bool
		ev         Evaluator
	}
	perCallQJS, perCallGoja := mode{false, EvaluatorQuickJS}, mode{false, EvaluatorGoja}
	persQJS, persGoja := mode{true, EvaluatorQuickJS}, mode{true, EvaluatorGoja}
	tests := []struct {
		name   string
		code   string
		native []mode // modes that get the native wrapper; the others a SYNTAX_ERROR naming the limit
	}{
		{"for await over the byte limit", pad + "for await (const v of g()) {}", []mode{perCallQJS}},
		{"for await over the arrow limit", arrows + "for await (const v of g()) {}", []mode{perCallQJS}},
		{"TypeScript over the byte limit (QuickJS reports it)", "let n: number = 1;\n" + pad, []mode{perCallQJS}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, m := range []mode{perCallQJS, perCallGoja, persQJS, persGoja} {
				s, err := Prepare(tt.code, Options{Persistent: m.persistent, Evaluator: m.ev})
				native := false
				for _, n := range tt.native {
					native = native || n == m
				}
				if native {
					want := "(async function(){__cm_body0:{{\n" + tt.code + "\n}break __cm_body0}})()"
					if err != nil || s.JS != want || s.LineOffset != 1 {
						t.Errorf("%+v: got %v, %v", m, err, s != nil && s.JS == want)
					}
					continue
				}
				if errs.CodeOf(err) != errs.CodeSyntaxError || !strings.Contains(err.Error(), "16384 bytes and 256 arrow functions") || !strings.Contains(err.Error(), "split it") {
					t.Errorf("%+v: got %v, want a SYNTAX_ERROR naming the limit", m, err)
				}
			}
		})
	}
}

// The native wrapper's label is one the program never spells, with or
// without \u escapes.
func TestNativeLabel(t *testing.T) {
	for code, want := range map[string]string{
		"return 1":                               "__cm_body0",
		"__cm_body0: {}":                         "__cm_body1",
		"\\u005f_cm_body0: { break __cm_body1 }": "__cm_body2",
		"_\\u{5f}cm_bod\\u0079\\u{30}: {}":       "__cm_body1",
		"'\\u{110000}' // __cm_body":             "__cm_body0",
	} {
		if got := nativeLabel(code); got != want {
			t.Errorf("nativeLabel(%q) = %q, want %q", code, got, want)
		}
	}
}
