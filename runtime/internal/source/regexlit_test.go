package source

import (
	"errors"
	"strings"
	"testing"

	"github.com/codemode/codemode/tools/errs"
)

func TestRegExpLiteralsForQuickJS(t *testing.T) {
	code := "const a = 1\nreturn [/(?i:a)b/.test('Ab'), /[\\p{L}--[a-z]]/v, /x/g, '(?i:', a / 2]"
	for _, persistent := range []bool{false, true} {
		s, err := Prepare(code, Options{Evaluator: EvaluatorQuickJS, Persistent: persistent})
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(s.JS, RegExpHelper+"("); n != 2 {
			t.Errorf("persistent %v: %d helper calls in %s", persistent, n, s.JS)
		}
		if !strings.Contains(s.JS, `/x/g`) || !strings.Contains(s.JS, `'(?i:'`) {
			t.Errorf("persistent %v: rewrote more than the two literals: %s", persistent, s.JS)
		}
		g, err := Prepare(code, Options{Evaluator: EvaluatorGoja, Persistent: persistent})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(g.JS, RegExpHelper) {
			t.Errorf("goja's script was rewritten: %s", g.JS)
		}
	}
	// valid but beyond the rewriting: left to QuickJS, which reports it
	s, err := Prepare("const x = 1\n  return /(?i:(a)\\1)/", Options{Evaluator: EvaluatorQuickJS})
	if err != nil || !strings.Contains(s.JS, `/(?i:(a)\1)/`) {
		t.Fatalf("%v %v", s, err)
	}
	// invalid: the program's SyntaxError at the literal
	_, err = Prepare("const x = 1\n  return /[a&&&b]/v", Options{Evaluator: EvaluatorQuickJS})
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.CodeSyntaxError || e.Info["line"] != 2 || e.Info["column"] != 10 {
		t.Fatalf("err = %#v", err)
	}
}
