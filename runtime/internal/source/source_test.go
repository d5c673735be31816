package source

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	parser "github.com/codemode/codemode/runtime/internal/jsparse"
	"github.com/codemode/codemode/tools/errs"
)

func TestPrepareSyntaxErrors(t *testing.T) {
	tests := []struct {
		name       string
		code       string
		persistent bool
		line, col  int
		msg        string
	}{
		{name: "js", code: "let x = ;", line: 1, col: 9},
		{name: "js later line", code: "const a = 1\n\n  foo bar", line: 3},
		{name: "unterminated", code: "return 1\nlet y = {", line: 2},
		{name: "ts", code: "const x: number = 1\nconst y: string = ;", line: 2, col: 19},
		{name: "persistent", code: "let ok = 1\nlet = = 2", persistent: true, line: 2},
		{name: "escaping the wrapper", code: "}); globalThis.escaped = 1; (async function(){", line: 1},
		{name: "dynamic import", code: "const m = await import('fs')", line: 1, msg: "import() is not available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Prepare(tt.code, Options{Persistent: tt.persistent})
			var te *errs.Error
			if !errors.As(err, &te) || (te.Code != errs.CodeSyntaxError && te.Code != errs.CodeNestingTooDeep) {
				t.Fatalf("got %v, want SYNTAX_ERROR", err)
			}
			if got := te.Info["line"]; got != tt.line {
				t.Errorf("got line %v, want %d (%s)", got, tt.line, te.Message)
			}
			if tt.col != 0 && te.Info["column"] != tt.col {
				t.Errorf("got column %v, want %d (%s)", te.Info["column"], tt.col, te.Message)
			}
			if tt.msg != "" && !strings.Contains(te.Message, tt.msg) {
				t.Errorf("got message %q, want it to contain %q", te.Message, tt.msg)
			}
		})
	}
}

func TestPrepareShapes(t *testing.T) {
	tests := []struct {
		name       string
		code       string
		persistent bool
		ts         bool
		declared   []string
		runner     bool // the chunk runner (__cm_k) is used
	}{
		{name: "plain js per-call", code: "return 1"},
		{name: "ts per-call", code: "const x: number = 1\nreturn x", ts: true},
		{name: "persistent declarations", persistent: true,
			code:     "let x = 1\nconst {a, b: [c], ...r} = o\nvar v\nfunction f() {}\nasync function g() {}\nclass K {}\nfor (var i = 0; i < 1; i++) { var inner }\nfor (var k of []) {}\n{ let blockScoped = 1 }",
			declared: []string{"x", "a", "c", "r", "v", "f", "g", "K", "i", "inner", "k"}, runner: true},
		// goja's AST leaves out parentheses and the () of `new X()`: the
		// rewrite must still close each declaration after its full text.
		{name: "persistent parentheses and new", persistent: true,
			code:     "const m = new Map();\nconst n = (1);\nlet f = x => (x + 1)\nlet g = new Date\nconst h = a + new Set()  // c\nconst o = ((1) + (2))\nvar p = new Map ( /* x */ )\nconst q = c ? (a) : (b)\nfor (let i = new Number(0); i < 1; i++) {}",
			declared: []string{"m", "n", "f", "g", "h", "o", "p", "q"}},
		{name: "persistent ts", persistent: true, ts: true, code: "const n: number = 1\nfunction sq(x: number) { return x * x }", declared: []string{"n", "sq"}, runner: true},
		{name: "persistent without functions runs directly", persistent: true, code: "let x = await 1\nreturn x", declared: []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Prepare(tt.code, Options{Persistent: tt.persistent})
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if s.TypeScript != tt.ts {
				t.Errorf("got TypeScript %v, want %v", s.TypeScript, tt.ts)
			}
			if !reflect.DeepEqual(s.Declared, tt.declared) {
				t.Errorf("got Declared %q, want %q", s.Declared, tt.declared)
			}
			if got := strings.Contains(s.JS, "__cm_k"); got != tt.runner {
				t.Errorf("chunk runner used: %v, want %v\n%s", got, tt.runner, s.JS)
			}
			if s.LineOffset != 1 {
				t.Errorf("got LineOffset %d, want 1", s.LineOffset)
			}
			if _, err := parser.ParseFile(nil, "", s.JS, 0, parser.WithDisableSourceMaps); err != nil {
				t.Errorf("output does not parse: %v\n%s", err, s.JS)
			}
		})
	}
}

// The rewrite keeps every user line on its line, so engine positions need
// only LineOffset.
func TestPersistentKeepsLines(t *testing.T) {
	code := "let a = 1\nconst b = 'é✓' // note\nfunction f() {\n  return MARK\n}\nclass C {}\nif (a) var z = 1; else z = 2\nreturn MARK2"
	s, err := Prepare(code, Options{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(s.JS, "\n")
	for _, m := range []struct {
		mark string
		line int
	}{{"MARK\n", 4}, {"MARK2", 8}} {
		got := lines[m.line-1+s.LineOffset]
		if !strings.Contains(got+"\n", m.mark) {
			t.Errorf("user line %d is %q in the script, want it to contain %q", m.line, got, m.mark)
		}
	}
}

func TestPrepareCaches(t *testing.T) {
	a, err := Prepare("return 42", Options{Persistent: false})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Prepare("return 42", Options{Persistent: false})
	c, _ := Prepare("return 42", Options{Persistent: true})
	if a != b {
		t.Error("same code and mode: got two scripts, want the cached one")
	}
	if a == c {
		t.Error("different modes share a cache entry")
	}
}

func TestPositionMapsTypeScript(t *testing.T) {
	s, err := Prepare("const x: number = 1\n\n\nthrow new Error('x')", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Find the throw in the generated script and map its line back.
	for i, l := range strings.Split(s.JS, "\n") {
		if c := strings.Index(l, "throw"); c >= 0 {
			if line, _ := s.Position(i+1, c+1); line != 4 {
				t.Errorf("got line %d, want 4", line)
			}
			return
		}
	}
	t.Fatal("no throw in the output")
}

func FuzzPrepare(f *testing.F) {
	for _, s := range []string{"return 1", "let x = 1\nfunction f(){}", "const {a} = o; class K {}", "for (var i of []) {}", "x: var y = 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		for _, persistent := range []bool{false, true} {
			s, err := Prepare(code, Options{Persistent: persistent})
			if err != nil {
				var te *errs.Error
				if !errors.As(err, &te) || (te.Code != errs.CodeSyntaxError && te.Code != errs.CodeNestingTooDeep) {
					t.Fatalf("Prepare(%q, %v): got %v, want a SYNTAX_ERROR, NESTING_TOO_DEEP or success", code, persistent, err)
				}
				continue
			}
			if !s.TypeScript {
				if _, err := parser.ParseFile(nil, "", s.JS, 0, parser.WithDisableSourceMaps); err != nil {
					t.Fatalf("Prepare(%q, %v) produced invalid JS: %v\n%s", code, persistent, err, s.JS)
				}
			}
		}
	})
}

// Each engine's parser decides (see the package doc, "Syntax").
func TestPrepareEvaluators(t *testing.T) {
	forAwait := "const out = []\nfor await (const x of [1, 2]) out.push(x)\nreturn out"
	tests := []struct {
		name       string
		code       string
		ev         Evaluator
		persistent bool
		lowered    bool // esbuild rewrote it (a source map maps positions)
		verbatim   bool // the script is the user's text, wrapped
		asyncGen   bool // the script keeps the async generator as written
	}{
		{name: "goja lowers for await", code: forAwait, ev: EvaluatorGoja, lowered: true},
		{name: "goja lowers async generators", code: "async function* g() { yield 1 }\nreturn 1", ev: EvaluatorGoja, lowered: true},
		{name: "quickjs gets for await lowered", code: forAwait, ev: EvaluatorQuickJS, lowered: true},
		{name: "quickjs gets async generators as written, for await lowered", code: "async function* g() { for await (const x of [1]) yield x }\nreturn 1", ev: EvaluatorQuickJS, lowered: true, asyncGen: true},
		{name: "quickjs keeps async generators", code: "async function* g() { yield 1 }\nreturn 1", ev: EvaluatorQuickJS, verbatim: true, asyncGen: true},
		{name: "quickjs persistent lowers for the rewrite", code: forAwait, ev: EvaluatorQuickJS, persistent: true, lowered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Prepare(tt.code, Options{Persistent: tt.persistent, Evaluator: tt.ev})
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if s.TypeScript != tt.lowered {
				t.Errorf("lowered %v, want %v:\n%s", s.TypeScript, tt.lowered, s.JS)
			}
			if tt.verbatim && s.JS != perCallPrefix+tt.code+perCallSuffix {
				t.Errorf("script is not the program as written:\n%s", s.JS)
			}
			if tt.ev == EvaluatorGoja || tt.persistent {
				if strings.Contains(s.JS, "for await") || strings.Contains(s.JS, "async function*") {
					t.Errorf("goja's script still has the syntax goja lacks:\n%s", s.JS)
				}
			}
			// for await is lowered for both engines (QuickJS-ng does not
			// await the iterator's return() on an early exit).
			if strings.Contains(s.JS, "for await") {
				t.Errorf("the script still has for await:\n%s", s.JS)
			}
			if tt.asyncGen != strings.Contains(s.JS, "async function*") {
				t.Errorf("async generator as written %v, want %v:\n%s", !tt.asyncGen, tt.asyncGen, s.JS)
			}
		})
	}
	// The esbuild limits still hold: too big for esbuild is the parser's
	// syntax error, on both.
	var te *errs.Error
	// (On QuickJS per call, its own parser decides: TestOverLimits.)
	_, err := Prepare(strings.Repeat("// pad\n", 3000)+forAwait, Options{Evaluator: EvaluatorGoja})
	if !errors.As(err, &te) || te.Code != errs.CodeSyntaxError || te.Info["line"] != 3002 {
		t.Errorf("big for-await program: got %v, want SYNTAX_ERROR at line 3002", err)
	}
	// Text that esbuild reads as a file but that escapes the wrapper.
	for _, ev := range []Evaluator{EvaluatorGoja, EvaluatorQuickJS} {
		_, err := Prepare("for await (const x of []) {}\n}\n+(globalThis.escaped = 1) + async function() {", Options{Evaluator: ev})
		if !errors.As(err, &te) || te.Code != errs.CodeSyntaxError {
			t.Errorf("escaping program: got %v, want SYNTAX_ERROR", err)
		}
	}
	// Nesting is refused before any parser but the guarded one, on both.
	deep := "for await (const x of []) {}\nreturn " + strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	for _, ev := range []Evaluator{EvaluatorGoja, EvaluatorQuickJS} {
		_, err := Prepare(deep, Options{Evaluator: ev})
		if !errors.As(err, &te) || te.Code != errs.CodeNestingTooDeep {
			t.Errorf("evaluator %d: deep program after a syntax goja lacks: got %v, want NESTING_TOO_DEEP", ev, err)
		}
	}
}

// An error in the wrapper after the user's text is the end of the input,
// at the end of the user's last line: never a brace the user never wrote.
func TestPrepareEndOfInput(t *testing.T) {
	_, err := Prepare("let a = 1\nreturn 1+", Options{})
	var te *errs.Error
	if !errors.As(err, &te) || te.Code != errs.CodeSyntaxError {
		t.Fatalf("got %v", err)
	}
	if te.Info["line"] != 2 || te.Info["column"] != 10 || strings.Contains(te.Message, "}") {
		t.Errorf("got %q %v, want end of input at 2:10", te.Message, te.Info)
	}
}

// esbuild's async generator helper is patched (see asyncGeneratorResume):
// the text it patches is still esbuild's.
func TestAsyncGeneratorHelperPatched(t *testing.T) {
	s, err := Prepare("async function* g() { try { yield 1 } finally { await null } }\nreturn 1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.JS, asyncGeneratorResumeFixed) || strings.Contains(s.JS, asyncGeneratorResume) {
		t.Errorf("esbuild's __asyncGenerator helper was not patched:\n%s", s.JS)
	}
}
