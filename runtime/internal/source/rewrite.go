package source

import (
	"sort"
	"strings"

	"github.com/codemode/codemode/runtime/internal/goja/ast"
	"github.com/codemode/codemode/runtime/internal/goja/file"
	"github.com/codemode/codemode/runtime/internal/goja/token"
	"github.com/codemode/codemode/runtime/internal/jsparse"
	"github.com/codemode/codemode/tools/errs"
)

// The persistent script's shape (see the package doc for the rules it
// implements):
//
//	line 1:  ["use strict";]var a,b,f;globalThis.__cm_k=[];__cm_k.push(async function(){
//	         …chunk 0: the body up to the first top-level function…;return __cm_k});
//	         function f(){…}            ← a real global function declaration
//	         ;__cm_k.push(async function(){ …chunk 1… ;return __cm_k});
//	last:    (async function(k){…run the chunks in order…})(__cm_k)
//
// A body without top-level functions is one chunk, and runs without the
// runner: ["use strict";]var a,b;(async function(){\n…\n})().
//
// Top-level function declarations must live at global scope to be hoisted
// globals that see later redefinitions, and the rest of the body must live in
// async functions for `await` and `return`; so the body is cut into chunks
// at each top-level function. The chunks run in order in one async runner;
// a chunk that falls off its end returns the sentinel __cm_k and the next one
// runs, a chunk that executes `return v` ends the program with v. Every edit
// is made in place, so the user's text keeps its lines.
const (
	chunkClose  = ";return __cm_k});"
	chunkOpen   = ";__cm_k.push(async function(){"
	persistTail = "\n;return __cm_k});\n(async function(k){try{for(var i=0;i<k.length;i++){var r=await (0,k[i])();if(r!==k)return r}}finally{delete globalThis.__cm_k}})(__cm_k)"
)

type edit struct {
	at, end int // byte offsets in the body; end > at replaces code[at:end]
	text    string
	seq     int // keeps insertions at one offset in the order they were made
}

type rewriter struct {
	code     string
	base     int // the file.Idx of code[0]
	edits    []edit
	declared []string
	seen     map[string]bool
	chunked  bool // a top-level function cut the body into chunks
}

func rewrite(code string, fl *ast.FunctionLiteral, opts []jsparse.Option) (string, []string, error) {
	r := &rewriter{code: code, base: len(perCallPrefix) + 1, seen: map[string]bool{}}
	strict := false
	for i, st := range fl.Body.List {
		switch s := st.(type) {
		case *ast.ExpressionStatement:
			if lit, ok := s.Expression.(*ast.StringLiteral); ok && i == 0 && lit.Value == "use strict" {
				strict = true
			}
		case *ast.VariableStatement:
			r.decl(r.off(s.Var), token.VAR, s.List)
		case *ast.LexicalDeclaration:
			r.decl(r.off(s.Idx), s.Token, s.List)
		case *ast.FunctionDeclaration:
			r.chunked = true
			r.declare(string(s.Function.Name.Name))
			r.insert(r.funcStart(s.Function), chunkClose)
			r.insert(r.off(s.Idx1()), chunkOpen)
		case *ast.ClassDeclaration:
			name := string(s.Class.Name.Name)
			r.declare(name)
			r.insert(r.off(s.Idx0()), "{("+name+" = ")
			r.insert(r.off(s.Idx1()), ");}")
		default:
			r.nested(st)
		}
	}

	var b strings.Builder
	if strict {
		b.WriteString(`"use strict";`)
	}
	if len(r.declared) > 0 {
		b.WriteString("var ")
		b.WriteString(strings.Join(r.declared, ","))
		b.WriteString(";")
	}
	if r.chunked {
		b.WriteString("globalThis.__cm_k=[];__cm_k.push(async function(){\n")
		r.apply(&b)
		b.WriteString(persistTail)
	} else {
		// No top-level function: one chunk, run directly, as in per-call
		// mode (the runner costs QuickJS ~35 µs a run).
		b.WriteString("(async function(){\n")
		r.apply(&b)
		b.WriteString("\n})()")
	}
	js := b.String()

	// The rewrite works on positions the parser reports; re-parsing is a
	// cheap (cached with the result) guarantee that it produced valid code.
	if _, err := jsparse.ParseFile(nil, "", js, 0, opts...); err != nil {
		return "", nil, &errs.Error{Code: errs.CodeInternal, Message: "source: persistent rewrite produced invalid code: " + err.Error(), Err: err}
	}
	return js, r.declared, nil
}

func (r *rewriter) off(idx file.Idx) int { return int(idx) - r.base }

func (r *rewriter) insert(at int, text string) {
	r.edits = append(r.edits, edit{at: at, end: at, text: text, seq: len(r.edits)})
}

func (r *rewriter) replace(at, end int, text string) {
	r.edits = append(r.edits, edit{at: at, end: end, text: text, seq: len(r.edits)})
}

func (r *rewriter) declare(name string) {
	if !r.seen[name] {
		r.seen[name] = true
		r.declared = append(r.declared, name)
	}
}

// funcStart is where a function declaration's text begins: its literal's
// position is the `function` keyword, which an `async` may precede.
func (r *rewriter) funcStart(fl *ast.FunctionLiteral) int {
	at := r.off(fl.Function)
	if fl.Async {
		if i := strings.LastIndex(r.code[:at], "async"); i >= 0 {
			return i
		}
	}
	return at
}

// decl rewrites a `var`/`let`/`const` statement whose keyword is at kw into
// a block holding one assignment expression:
//
//	let {a, b: [c]} = o, d;   →   {(  {a, b: [c]} = o, d = void 0);}
//
// The block keeps the statement a statement wherever it stands (the sole
// body of an `if`, after a line without a semicolon), and the parentheses
// keep a leading object pattern from parsing as a block.
func (r *rewriter) decl(kw int, tok token.Token, list []*ast.Binding) {
	n := tokenLen(tok)
	r.replace(kw, kw+n, "{("+strings.Repeat(" ", n-2))
	for _, b := range list {
		r.bindingNames(b.Target)
		if b.Initializer == nil && tok != token.VAR {
			r.insert(r.off(b.Target.Idx1()), " = void 0")
		}
	}
	end := r.bindingEnd(list[len(list)-1])
	r.insert(end, ")")
	if semi := r.nextSemicolon(end); semi >= 0 {
		r.insert(semi+1, "}")
	} else {
		r.insert(end, ";}")
	}
}

// bindingEnd is where a binding's text ends. goja's positions stop short in
// two cases: parentheses are not in the AST (`(1)` ends at the 1, an arrow's
// `(body)` at the body) and `new X()` with no arguments ends at X. Right
// after a complete initializer, a `)` can only close a parenthesis opened
// inside it and an empty `()` can only be its call, so both are absorbed.
func (r *rewriter) bindingEnd(b *ast.Binding) int {
	end := r.off(b.Idx1())
	for {
		i := r.skipBlank(end)
		switch {
		case i < len(r.code) && r.code[i] == ')':
			end = i + 1
		case i < len(r.code) && r.code[i] == '(':
			j := r.skipBlank(i + 1)
			if j >= len(r.code) || r.code[j] != ')' {
				return end
			}
			end = j + 1
		default:
			return end
		}
	}
}

// skipBlank returns the offset of the first character at or after i that
// is not whitespace or inside a comment.
func (r *rewriter) skipBlank(i int) int {
	c := r.code
	for i < len(c) {
		switch {
		case c[i] == ' ' || c[i] == '\t' || c[i] == '\n' || c[i] == '\r':
			i++
		case strings.HasPrefix(c[i:], "//"):
			j := strings.IndexByte(c[i:], '\n')
			if j < 0 {
				return len(c)
			}
			i += j
		case strings.HasPrefix(c[i:], "/*"):
			j := strings.Index(c[i+2:], "*/")
			if j < 0 {
				return len(c)
			}
			i += j + 4
		default:
			return i
		}
	}
	return i
}

// nextSemicolon returns the offset of the `;` that ends a statement at end,
// skipping whitespace and comments, or -1 when the statement ended by ASI.
func (r *rewriter) nextSemicolon(end int) int {
	if i := r.skipBlank(end); i < len(r.code) && r.code[i] == ';' {
		return i
	}
	return -1
}

// nested finds `var` declarations below the top level (in blocks, loops,
// `try`, `switch`, labels): they are function-scoped, so in a REPL they are
// top-level names too. It does not enter functions or classes.
func (r *rewriter) nested(st ast.Statement) {
	switch s := st.(type) {
	case *ast.VariableStatement:
		r.decl(r.off(s.Var), token.VAR, s.List)
	case *ast.BlockStatement:
		for _, c := range s.List {
			r.nested(c)
		}
	case *ast.IfStatement:
		r.nested(s.Consequent)
		if s.Alternate != nil {
			r.nested(s.Alternate)
		}
	case *ast.ForStatement:
		if init, ok := s.Initializer.(*ast.ForLoopInitializerVarDeclList); ok && len(init.List) > 0 {
			// The parser leaves init.Var unset; find the keyword instead.
			from, to := r.off(s.For), r.off(init.List[0].Idx0())
			if i := strings.LastIndex(r.code[from:to], "var"); i >= 0 {
				r.replace(from+i, from+i+3, "   ")
			}
			for _, b := range init.List {
				r.bindingNames(b.Target)
			}
		}
		r.nested(s.Body)
	case *ast.ForInStatement:
		r.forInto(s.For, s.Into)
		r.nested(s.Body)
	case *ast.ForOfStatement:
		r.forInto(s.For, s.Into)
		r.nested(s.Body)
	case *ast.WhileStatement:
		r.nested(s.Body)
	case *ast.DoWhileStatement:
		r.nested(s.Body)
	case *ast.TryStatement:
		r.nested(s.Body)
		if s.Catch != nil {
			r.nested(s.Catch.Body)
		}
		if s.Finally != nil {
			r.nested(s.Finally)
		}
	case *ast.SwitchStatement:
		for _, c := range s.Body {
			for _, cs := range c.Consequent {
				r.nested(cs)
			}
		}
	case *ast.LabelledStatement:
		r.nested(s.Statement)
	case *ast.WithStatement:
		r.nested(s.Body)
	}
}

// forInto rewrites `for (var x of …)` / `for (var x in …)` to assign the
// global x.
func (r *rewriter) forInto(forIdx file.Idx, into ast.ForInto) {
	v, ok := into.(*ast.ForIntoVar)
	if !ok {
		return
	}
	from, to := r.off(forIdx), r.off(v.Binding.Idx0())
	if i := strings.LastIndex(r.code[from:to], "var"); i >= 0 {
		r.replace(from+i, from+i+3, "   ")
	}
	r.bindingNames(v.Binding.Target)
}

// bindingNames declares every identifier a binding target binds.
func (r *rewriter) bindingNames(t ast.Node) {
	switch n := t.(type) {
	case *ast.Identifier:
		r.declare(string(n.Name))
	case *ast.ArrayPattern:
		for _, e := range n.Elements {
			if e != nil {
				r.bindingNames(e)
			}
		}
		if n.Rest != nil {
			r.bindingNames(n.Rest)
		}
	case *ast.ObjectPattern:
		for _, p := range n.Properties {
			switch p := p.(type) {
			case *ast.PropertyShort:
				r.declare(string(p.Name.Name))
			case *ast.PropertyKeyed:
				r.bindingNames(p.Value)
			case *ast.SpreadElement:
				r.bindingNames(p.Expression)
			}
		}
		if n.Rest != nil {
			r.bindingNames(n.Rest)
		}
	case *ast.AssignExpression: // a default: [a = 1]
		r.bindingNames(n.Left)
	case *ast.SpreadElement:
		r.bindingNames(n.Expression)
	}
}

func (r *rewriter) apply(b *strings.Builder) {
	sort.SliceStable(r.edits, func(i, j int) bool {
		if r.edits[i].at != r.edits[j].at {
			return r.edits[i].at < r.edits[j].at
		}
		return r.edits[i].seq < r.edits[j].seq
	})
	pos := 0
	for _, e := range r.edits {
		if e.at < pos { // cannot happen for a tree's positions; keep the text whole
			continue
		}
		b.WriteString(r.code[pos:e.at])
		b.WriteString(e.text)
		pos = e.end
		if e.end < e.at {
			pos = e.at
		}
	}
	b.WriteString(r.code[pos:])
}
