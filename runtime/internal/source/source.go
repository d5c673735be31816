// Package source turns a code_run program into a script an engine can
// evaluate.
//
// A program is the body of an async function: `await` and `return` work at
// top level, and the script [Prepare] returns, evaluated as a global script,
// yields a Promise of the program's return value.
//
// # TypeScript
//
// Plain JavaScript never pays for the TypeScript compiler: the body is first
// parsed as JavaScript (goja's parser, in the copy of package jsparse that
// bounds its nesting; a few microseconds), and
// only when that fails is it handed to esbuild's transform (loader "ts") to
// strip types. esbuild may reject a program, but it is never the one that
// accepts it: its output is still parsed here (persistent mode) and compiled
// by the engine that runs it, so syntax acceptance stays with the evaluator
// (docs/contract.md#sandbox). esbuild reformats code, so TypeScript scripts end with an
// inline source map (`//# sourceMappingURL=data:…`) that maps positions back
// to the user's source; goja applies it natively, and [Script.Position] does
// the same for engines that do not.
//
// # Syntax
//
// The engine that runs a program decides what is valid syntax
// (docs/contract.md#sandbox); [Options.Evaluator] says which. A program
// that goja's parser accepts is wrapped as it is, for either engine, and
// the engine's own compiler has the last word (QuickJS reports its early
// errors itself). A program goja's parser rejects goes through esbuild
// (within the limits below), which strips TypeScript types and lowers the
// syntax goja lacks (`for await`, async generators); goja's parser must
// then accept the result, which proves it is exactly one function body
// (text can be a valid file for esbuild and still escape the wrapper) of
// bounded nesting. goja runs that lowered script; QuickJS (per call) runs
// the same parse printed with only `for await` lowered (QuickJS-ng does not
// await the iterator's return() when such a loop exits early), so its own
// parser reads async generators and the rest. Syntax errors are reported
// at the user's line and column: goja's parser's, esbuild's (mapped back
// from its wrapper), or the engine's. A persistent program always runs the lowered script,
// because the rewrite below reads its tree.
//
// # Limits
//
// Parsing is where a hostile program can hurt the process: goja's parser,
// its compiler and esbuild recurse on the Go stack, and a stack overflow
// is fatal. So the JavaScript parse runs with [Options.MaxNestingDepth],
// and a program that nests deeper fails with NESTING_TOO_DEEP before any
// other parser or compiler sees it. esbuild, which is quadratic to cubic
// on some nestings that the depth bound allows (chained arrow functions),
// only sees programs of at most [MaxTypeScriptBytes] with at most
// [MaxTypeScriptArrows] arrows. A larger program that goja's parser
// rejects goes to QuickJS's own parser when it runs per call (see
// nativeScript: a wrapper no program text can escape), and is a
// SYNTAX_ERROR naming the limit for goja and in persistent mode.
//
// # Persistent (REPL) mode
//
// In a persistent environment top-level declarations survive across
// programs, like a REPL. Evaluating the body at global scope would break
// top-level `await` and redeclaring a `let` in a later program, so the body
// is rewritten instead; the rules are:
//
//   - Top-level `let`, `const`, `class` and `var` declarations (including
//     destructuring patterns) become assignments to global variables, which
//     are declared with `var` before the program runs. A later program may
//     redeclare any of them, with any keyword.
//   - `const` does not stay constant: the name is an ordinary global binding,
//     so a later program (or the same one) can reassign it.
//   - `let x;` without an initializer resets x to undefined; `var x;` keeps
//     its current value (as `var` always does).
//   - There is no temporal dead zone: reading a name before its declaration
//     in the same program sees the value from an earlier program (or
//     undefined) instead of throwing.
//   - Top-level function declarations (plain, async, generator) are real
//     global function declarations, hoisted before the program starts, so
//     they can be called before their text and they see the current value of
//     every other global, including ones redefined by later programs.
//   - `var` declarations nested in blocks, loops, `try` or `switch` at top
//     level are function-scoped in JavaScript, so they become globals too.
//   - Everything inside a block (`let`, `const`, `class`, functions in
//     blocks), and everything inside functions, is untouched and behaves as
//     in any JavaScript function.
//   - A name declared in a program stays declared even if the program throws
//     later.
//   - The global `__cm_k` is the rewrite's own (it holds the program's
//     chunks while it runs); `tools` is read-only in every environment.
//
// Positions in the rewritten script stay on the user's lines; columns after
// an inserted token on the same line may be off by a few characters.
//
// # Caching
//
// Prepared scripts are cached in a bounded LRU keyed by the SHA-256 of the
// code and the mode; a [Script] is shared and must not be modified.
package source

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/codemode/codemode/runtime/internal/goja/ast"
	"github.com/codemode/codemode/runtime/internal/goja/file"
	"github.com/codemode/codemode/runtime/internal/goja/token"
	"github.com/codemode/codemode/runtime/internal/jsparse"
	"github.com/codemode/codemode/tools/errs"
)

// Script is a prepared program. Scripts are shared through a cache: treat
// every field as read-only.
type Script struct {
	// JS is the script to evaluate at global scope; its completion value is
	// a Promise of the program's return value.
	JS string
	// LineOffset is subtracted from a line reported by the engine (after
	// source-map translation, if any) to get the line in the user's source.
	LineOffset int
	// Declared lists, in order of first appearance, the top-level names a
	// persistent program declares. It is nil in per-call mode.
	Declared []string
	// TypeScript is true when the program needed esbuild to strip types.
	TypeScript bool
	// Native is true for a program no parser of ours read (over the
	// transpiler's limits, handed to QuickJS's own parser): a syntax error
	// the engine reports is completed with NativeHint.
	Native bool

	sourceMap *sourcemap.Consumer // non-nil for TypeScript: JS → wrapped user source
}

// Position maps a 1-based line and column reported by an engine that does
// not apply inline source maps into the user's source. Engines that apply
// them (goja) report mapped positions already and only subtract LineOffset.
func (s *Script) Position(line, column int) (int, int) {
	if s.sourceMap != nil {
		if _, _, l, c, ok := s.sourceMap.Source(line, column); ok {
			line, column = l, c
		}
	}
	line -= s.LineOffset
	if line < 1 {
		line = 1
	}
	return line, column
}

// SourceName is the file name TypeScript positions refer to after goja
// applies a script's source map (esbuild records it as the map's source).
const SourceName = "program.ts"

const (
	// perCallPrefix opens the async function around the body. It is a line
	// of its own so the user's line N is line N+1 with unchanged columns.
	perCallPrefix = "(async function(){\n"
	perCallSuffix = "\n})()"
	// tsPrefix is the wrapper esbuild sees: esbuild rejects top-level
	// `return` and `await` in a bare file but accepts them in a function.
	tsPrefix = "async function __cm() {\n"
	tsSuffix = "\n}"
)

// cacheSize bounds the prepared-script cache. A prepared script costs
// roughly its source size twice; 1024 typical programs are a few MiB.
const cacheSize = 1024

type cacheKey struct {
	sum        [sha256.Size]byte
	persistent bool
	depth      int
	evaluator  Evaluator
}

var cache, _ = lru.New[cacheKey, *Script](cacheSize)

// Options are the mode and the limits of one preparation.
type Options struct {
	// Persistent selects the persistent-mode rewrite.
	Persistent bool
	// MaxNestingDepth bounds the program's nesting (see the package doc).
	// If zero, DefaultMaxNestingDepth.
	MaxNestingDepth int
	// Evaluator is the engine whose parser decides what is valid syntax
	// (see the package doc, "Syntax").
	Evaluator Evaluator
}

// Evaluator names the parser that will compile a prepared script.
type Evaluator int

const (
	// EvaluatorGoja (the zero value): the script must parse with goja's
	// parser; syntax it lacks (for await, async generators) is lowered by
	// esbuild for programs within the esbuild limits.
	EvaluatorGoja Evaluator = iota
	// EvaluatorQuickJS: QuickJS decides. A per-call program that goja's
	// parser rejects reaches QuickJS as written (types stripped when
	// esbuild can), and QuickJS reports its syntax errors.
	EvaluatorQuickJS
)

// gojaLowered is the syntax esbuild lowers for goja: what goja's parser
// lacks and esbuild can rewrite. Regular-expression flags goja refuses
// (d, v) cannot be lowered; they stay literals and fail as syntax errors.
var gojaLowered = map[string]bool{
	"for-await":       false,
	"async-generator": false,
}

// quickjsLowered is the syntax esbuild lowers for QuickJS although its
// parser reads it: QuickJS-ng 0.12 does not await an async iterator's
// return() when a `for await` loop exits early (break, return, throw), so
// the iterator's cleanup (an async generator's finally) runs after the
// code that follows the loop; esbuild's lowering awaits it, as the spec
// does. Lowering it costs nothing more: a program goja's parser rejects is
// printed a second time for QuickJS anyway.
var quickjsLowered = map[string]bool{
	"for-await": false,
}

// DefaultMaxNestingDepth is the nesting bound when Options leaves it zero.
const DefaultMaxNestingDepth = 1000

// The limits on what reaches esbuild (see the package doc). A program over
// them that is not JavaScript gets the JavaScript parser's syntax error.
const (
	MaxTypeScriptBytes  = 16 << 10
	MaxTypeScriptArrows = 256
)

// parseOptions never lets a `//# sourceMappingURL=` comment in user text
// make the parser read a file (a path like /dev/zero would hang it), and
// bounds the parser's nesting.
func parseOptions(depth int) []jsparse.Option {
	return []jsparse.Option{jsparse.WithDisableSourceMaps, jsparse.WithMaxDepth(depth)}
}

// Prepare turns program text into a Script. In persistent mode top-level
// declarations are rewritten to survive across runs (see the package doc).
// A program that does not parse fails with a *tools.Error of code
// SYNTAX_ERROR, one that nests too deeply with NESTING_TOO_DEEP; the
// error's Info holds "line" and "column" in the user's source.
//
// Prepare is safe for concurrent use; results are cached (the cache lookup
// marks the entry as recently used).
func Prepare(code string, opts Options) (*Script, error) {
	if opts.MaxNestingDepth <= 0 {
		opts.MaxNestingDepth = DefaultMaxNestingDepth
	}
	key := cacheKey{sha256.Sum256([]byte(code)), opts.Persistent, opts.MaxNestingDepth, opts.Evaluator}
	if s, ok := cache.Get(key); ok {
		return s, nil
	}
	popts := parseOptions(opts.MaxNestingDepth)
	s, err := prepare(code, opts.Persistent, opts.Evaluator, popts)
	if err != nil {
		return nil, err
	}
	if opts.Evaluator == EvaluatorQuickJS {
		if s, err = lowerRegExpLiterals(s, code, popts); err != nil {
			return nil, err
		}
	}
	cache.Add(key, s)
	return s, nil
}

func prepare(code string, persistent bool, ev Evaluator, popts []jsparse.Option) (*Script, error) {
	fl, jsErr := parseBody(code, popts)
	if jsErr == nil && ev == EvaluatorGoja && asyncGenerator.MatchString(code) && esbuildMay(code) {
		// goja's parser reads async generators, but its compiler refuses
		// them: lower them (text in a string or comment that looks like
		// one only costs a needless lowering).
		return prepareTS(code, persistent, false, &bodyError{msg: "async generators", line: 1, column: 1}, popts)
	}
	if jsErr == nil {
		if !persistent {
			return &Script{JS: perCallPrefix + code + perCallSuffix, LineOffset: 1}, nil
		}
		js, declared, err := rewrite(code, fl, popts)
		if err != nil {
			return nil, err
		}
		return &Script{JS: js, LineOffset: 1, Declared: declared}, nil
	}
	if jsErr.deep != nil {
		return nil, nestingError(jsErr)
	}
	if importCall(code, jsErr) {
		return nil, syntaxError("import() is not available in code_run programs: modules cannot be loaded; every capability is a tool, call it with await tools[\"name\"](args)", jsErr.line, jsErr.column)
	}
	native := ev == EvaluatorQuickJS && !persistent
	if !esbuildMay(code) {
		if native {
			// Too big for esbuild, but QuickJS's own parser decides:
			// it reads the syntax goja's lacks (for await, async
			// generators) and reports its own syntax errors.
			return nativeScript(code), nil
		}
		// Not goja's JavaScript, and too big to hand to esbuild safely.
		return nil, syntaxError(jsErr.msg+fmt.Sprintf(" (this engine's parser does not read this syntax; TypeScript types are stripped, and syntax newer than the engine's (for await, async generators) rewritten, only in programs of at most %d bytes and %d arrow functions, which bound the rewrite's CPU time; this program has %d bytes and %d arrow functions: split it into smaller code_run calls, or avoid the syntax)", MaxTypeScriptBytes, MaxTypeScriptArrows, len(code), strings.Count(code, "=>")), jsErr.line, jsErr.column)
	}
	return prepareTS(code, persistent, native, jsErr, popts)
}

// nativeScript wraps a per-call program that only QuickJS's parser checks
// (no other parser read it). The wrapper must keep every token of it
// inside the async function: text such as "}); f(); (async function(){"
// would otherwise escape it (QuickJS's AsyncFunction constructor pastes
// its body into such a wrapper too, so it does not help). So the body goes
// in a block labeled with a name the program never spells, and the
// wrapper's `break label` after the body's own closing brace is an early
// SyntaxError unless that brace closes the block the wrapper opened inside
// that label: the program cannot close the function (the label would be
// out of reach) nor reopen a label it cannot name. The inner brace, closed
// right after the body, makes a statement the body leaves dangling
// (`if (a)`) a syntax error instead of taking the wrapper's break.
// Differences from the plain wrapper, which only a program with
// unbalanced braces or these shapes sees: the body is a block, so a
// leading "use strict" is not a directive and `var f` beside `function f`
// is a redeclaration; a body with one unmatched `}` followed by another
// block (`} {`) is accepted, and still runs inside the function.
func nativeScript(code string) *Script {
	l := nativeLabel(code)
	return &Script{JS: "(async function(){" + l + ":{{\n" + code + "\n}break " + l + "}})()", LineOffset: 1, Native: true}
}

// NativeHint completes the message of a syntax error in a Native script
// (see nativeScript): QuickJS's message alone does not say that the program
// was too big to be transpiled, so a TypeScript annotation reads as an
// "unexpected token", and a `}` that closes more than the program opened
// reaches the wrapper's label ("label not found").
func NativeHint(msg string, codeBytes int) string {
	if strings.Contains(msg, "label not found") {
		return "SyntaxError: unbalanced braces: a '}' closes a block the program did not open (a code_run program is the body of an async function; it cannot close it)"
	}
	return msg + fmt.Sprintf(" (this program has %d bytes: programs over %d bytes are not transpiled, so TypeScript types are not stripped there; remove the type annotations, or split the program into smaller code_run calls)", codeBytes, MaxTypeScriptBytes)
}

// nativeLabel returns a label the program never names: absent from its
// text, and from its text with every \u escape decoded (identifiers may
// spell a name with escapes).
func nativeLabel(code string) string {
	decoded := unicodeEscape.ReplaceAllStringFunc(code, func(e string) string {
		h := strings.Trim(e[2:], "{}")
		n, err := strconv.ParseUint(h, 16, 32)
		if err != nil || n > unicode.MaxRune {
			return e
		}
		return string(rune(n))
	})
	for i := 0; ; i++ {
		l := "__cm_body" + strconv.Itoa(i)
		if !strings.Contains(code, l) && !strings.Contains(decoded, l) {
			return l
		}
	}
}

var unicodeEscape = regexp.MustCompile(`\\u(?:[0-9a-fA-F]{4}|\{[0-9a-fA-F]{1,8}\})`)

// esbuildMay reports whether code is within the limits on what reaches
// esbuild (see the package doc).
func esbuildMay(code string) bool {
	return len(code) <= MaxTypeScriptBytes && strings.Count(code, "=>") <= MaxTypeScriptArrows
}

// asyncGenerator matches the text of an async generator function or
// method (`async function*`, `async *m()`).
var asyncGenerator = regexp.MustCompile(`\basync\s*(?:function\s*)?\*`)

// bodyError is a syntax error at a position in the user's source.
type bodyError struct {
	msg          string
	line, column int
	deep         *jsparse.NestingError // set when the nesting bound stopped the parse
}

func nestingError(e *bodyError) *errs.Error {
	msg := fmt.Sprintf("the program nests deeper than %d levels (line %d, column %d): flatten it (name intermediate values, build data in loops instead of literals nested this deep)", e.deep.Limit, e.line, e.column)
	if e.deep.Backtracking {
		msg = fmt.Sprintf("the program nests arrow functions in default parameter values too deeply to parse (line %d, column %d): name the inner functions", e.line, e.column)
	}
	return &errs.Error{Code: errs.CodeNestingTooDeep, Message: msg, Info: map[string]any{"line": e.line, "column": e.column, "limit": e.deep.Limit}}
}

// parseBody parses code as the body of the per-call async function and
// returns that function's literal.
func parseBody(code string, popts []jsparse.Option) (*ast.FunctionLiteral, *bodyError) {
	wrapped := perCallPrefix + code + perCallSuffix
	prg, err := jsparse.ParseFile(nil, "", wrapped, 0, popts...)
	if err != nil {
		var deep *jsparse.NestingError
		if errors.As(err, &deep) {
			e := userPos(deep.Error(), deep.Position, code)
			e.deep = deep
			return nil, e
		}
		var list jsparse.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, userPos(list[0].Message, list[0].Position, code)
		}
		return nil, &bodyError{msg: err.Error(), line: 1, column: 1}
	}
	// The body must be exactly the function's body: text such as
	// "}); f(); (function(){" parses, but escapes the wrapper.
	fl := wrapperLiteral(prg)
	if fl == nil || int(fl.Body.RightBrace)-1 != len(perCallPrefix)+len(code)+1 {
		idx := file.Idx(len(wrapped))
		if fl != nil {
			idx = fl.Body.RightBrace
		}
		return nil, userPos("Unexpected '}': it closes the program's body", prg.File.Position(int(idx)-1), code)
	}
	return fl, nil
}

func wrapperLiteral(prg *ast.Program) *ast.FunctionLiteral {
	if len(prg.Body) != 1 {
		return nil
	}
	es, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	call, ok := es.Expression.(*ast.CallExpression)
	if !ok {
		return nil
	}
	fl, _ := call.Callee.(*ast.FunctionLiteral)
	return fl
}

// userPos converts a position in the wrapped source (user line N is line
// N+1) to the user's source, clamping positions in the wrapper's suffix
// (for example "unexpected end of input") to the end of the user's text.
func userPos(msg string, p file.Position, code string) *bodyError {
	line, col := p.Line-1, p.Column
	lines := strings.Count(code, "\n") + 1
	if line < 1 {
		line, col = 1, 1
	}
	if line > lines {
		line = lines
		col = len(code) - strings.LastIndexByte(code, '\n')
		if strings.Contains(msg, "}") {
			// The wrapper's closing brace, which the user never wrote.
			msg = "Unexpected end of input"
		}
	}
	return &bodyError{msg: msg, line: line, column: col}
}

func syntaxError(msg string, line, column int) *errs.Error {
	return &errs.Error{
		Code:    errs.CodeSyntaxError,
		Message: fmt.Sprintf("SyntaxError: %s (line %d, column %d)", msg, line, column),
		Info:    map[string]any{"line": line, "column": column},
	}
}

// importCall reports whether the JS parse failed on `import` — goja has no
// dynamic import, and a program cannot load modules anyway, so say that
// instead of "unexpected reserved word".
func importCall(code string, e *bodyError) bool {
	lines := strings.Split(code, "\n")
	if e.line < 1 || e.line > len(lines) {
		return false
	}
	l := lines[e.line-1]
	for _, c := range []int{e.column - 1, e.column} { // parsers disagree on where the token starts
		if c >= 0 && c < len(l) && strings.HasPrefix(l[c:], "import") {
			return true
		}
	}
	return false
}

// prepareTS strips TypeScript types with esbuild. When esbuild rejects the
// program too, its message is reported: it knows both TypeScript and
// JavaScript syntax, so it names the real problem in either (goja's parser
// would call a type annotation an "unexpected token"). jsErr is the fallback
// when esbuild gives no position.
func prepareTS(code string, persistent, native bool, jsErr *bodyError, popts []jsparse.Option) (*Script, error) {
	// The first transform lowers what goja's parser lacks, so that goja's
	// parser can check the result: it must be exactly one function body
	// (text such as "}\n+f() + async function() {" is a valid file for
	// esbuild, but escapes the wrapper), with its nesting bounded.
	helpers, body, rawMap, s, err := transform(code, gojaLowered, jsErr)
	if err != nil {
		return nil, err
	}
	fl, perr := parseBody(body, popts)
	if perr != nil {
		if perr.deep != nil {
			l, c := s.Position(perr.line+1+strings.Count(helpers, "\n"), perr.column)
			perr.line, perr.column = l, c
			return nil, nestingError(perr)
		}
		// esbuild accepted what the JavaScript parser (the evaluator's)
		// rejects: the evaluator decides, at the user's position.
		l, c := s.Position(perr.line+1+strings.Count(helpers, "\n"), perr.column)
		if importCall(code, &bodyError{line: l, column: c}) {
			return nil, syntaxError("import() is not available in code_run programs: modules cannot be loaded; every capability is a tool, call it with await tools[\"name\"](args)", l, c)
		}
		return nil, syntaxError(perr.msg, l, c)
	}
	if native && (strings.Contains(code, "await") || asyncGenerator.MatchString(code)) {
		// QuickJS parses the program's own syntax: the same parse printed
		// with only `for await` lowered (quickjsLowered; its structure is
		// the one just checked). Without `await` or an async generator
		// nothing was lowered: the first output is that already.
		if h, b, m, ns, err := transform(code, quickjsLowered, jsErr); err == nil {
			helpers, body, rawMap, s = h, b, m, ns
		}
	}
	var js string
	if persistent {
		js, s.Declared, err = rewrite(body, fl, popts)
		if err != nil {
			return nil, err
		}
	} else {
		js = perCallPrefix + body + perCallSuffix
	}
	s.JS = helpers + js + "\n//# sourceMappingURL=data:application/json;base64," + base64.StdEncoding.EncodeToString(rawMap)
	return s, nil
}

// transform runs esbuild on the program in its wrapper, with the syntax
// in supported lowered, and returns the helpers esbuild put in front, the
// body, the source map (raw) and a Script holding the parsed map.
func transform(code string, supported map[string]bool, jsErr *bodyError) (helpers, body string, rawMap []byte, s *Script, err error) {
	res := api.Transform(tsPrefix+code+tsSuffix, api.TransformOptions{
		Loader:        api.LoaderTS,
		Target:        api.ESNext,
		Supported:     supported,
		Sourcemap:     api.SourceMapExternal,
		Sourcefile:    SourceName,
		LegalComments: api.LegalCommentsNone,
		LogLevel:      api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		m := res.Errors[0]
		if m.Location == nil {
			return "", "", nil, nil, syntaxError(jsErr.msg, jsErr.line, jsErr.column)
		}
		e := userPos(m.Text, file.Position{Line: m.Location.Line, Column: m.Location.Column + 1}, code)
		return "", "", nil, nil, syntaxError(e.msg, e.line, e.column)
	}
	out := string(res.Code)
	// esbuild may emit helpers before the wrapper (decorators, lowered
	// async iteration); they stay in front, so generated lines still match
	// the source map line for line.
	start := strings.Index(out, tsPrefix)
	end := strings.LastIndex(out, "}")
	if start < 0 || end < start+len(tsPrefix) {
		return "", "", nil, nil, &errs.Error{Code: errs.CodeInternal, Message: "source: unexpected esbuild output shape"}
	}
	helpers, body = out[:start], strings.TrimSuffix(out[start+len(tsPrefix):end], "\n")
	helpers = strings.Replace(helpers, asyncGeneratorResume, asyncGeneratorResumeFixed, 1)
	sm, perr := sourcemap.Parse("", res.Map)
	if perr != nil {
		return "", "", nil, nil, &errs.Error{Code: errs.CodeInternal, Message: "source: esbuild source map: " + perr.Error(), Err: perr}
	}
	return helpers, body, res.Map, &Script{LineOffset: 1, TypeScript: true, sourceMap: sm}, nil
}

// esbuild's lowered async generator (__asyncGenerator, esbuild 0.28)
// resumes a generator that awaited while return() was closing it with
// return() again, so an `await` in its finally block ends the block there:
// the rest of the finally never runs and return() resolves to the awaited
// value. Only an await of `yield*` (its __await marks it, v[1]) must resume
// with return(), so that the delegation sees a return; a plain await
// resumes with next(), as the spec resumes an await. A test fails if
// esbuild's helper text changes.
const (
	asyncGeneratorResume      = `resume(k === "return" ? k : "next", v[1]`
	asyncGeneratorResumeFixed = `resume(k === "return" && v[1] ? k : "next", v[1]`
)

// tokenLen is the source length of a declaration keyword.
func tokenLen(t token.Token) int {
	if t == token.CONST {
		return 5
	}
	return 3 // let, var
}
