package jsparse

// codemode: the nesting guard. Everything in this file is codemode's
// addition to goja's parser; PATCHES.md lists the changes and why.

import (
	"fmt"

	"github.com/codemode/codemode/runtime/internal/goja/file"
)

// WithMaxDepth bounds how deeply the parser may nest: each recursive
// production (a statement, an assignment expression, a unary operand, a
// binding pattern, …) and each link of a left-deep chain (`a+b+…`,
// `a.b.c…`, `a?.b?.…`) counts one level. Past n, parsing stops with a
// *NestingError instead of recursing further: goja's parser and compiler
// are recursive, so deep enough input overflows the Go stack (a fatal
// error, not a panic) and long chains make the compiler quadratic.
// Zero means no bound (goja's behaviour).
//
// The same option bounds backtracking: goja re-parses a parenthesised
// arrow-function head as a parameter list, so arrows nested in default
// values (`(a=(a=(a=…)=>1)=>1)=>1`) cost 2^n; past 8 tokens scanned per
// byte of input parsing stops with a *NestingError whose Backtracking is
// set.
func WithMaxDepth(n int) Option {
	return func(opts *options) { opts.maxDepth = n }
}

// NestingError reports input that nests deeper than WithMaxDepth allows.
type NestingError struct {
	Position file.Position // where the limit was passed
	Limit    int
	// Backtracking is set when the parser gave up re-parsing rather than
	// nesting (see WithMaxDepth).
	Backtracking bool
}

func (e *NestingError) Error() string {
	if e.Backtracking {
		return fmt.Sprintf("%s: the program nests arrow functions in default parameter values too deeply to parse", e.Position)
	}
	return fmt.Sprintf("%s: the program nests deeper than %d levels", e.Position, e.Limit)
}

// tooDeep is the panic value that unwinds the parser when the limit is
// passed; parse turns it into a *NestingError.
type tooDeep struct {
	idx          file.Idx
	backtracking bool
}

// count counts one scanned token against the backtracking budget: a
// linear parse scans at most one token per byte (plus the end).
func (self *_parser) count() {
	self.tokens++
	if self.opts.maxDepth > 0 && self.tokens > 8*self.length+4096 {
		panic(tooDeep{idx: self.idx, backtracking: true})
	}
}

// enter opens one level of a recursive production; leave closes it.
func (self *_parser) enter() {
	self.depth++
	if self.opts.maxDepth > 0 && self.depth > self.opts.maxDepth {
		panic(tooDeep{idx: self.idx})
	}
}

func (self *_parser) leave() { self.depth-- }

// link counts one more link of a chain; restoreDepth ends the chain.
func (self *_parser) link() { self.enter() }

func (self *_parser) restoreDepth(depth int) { self.depth = depth }

func (self *_parser) recoverTooDeep(err *error) {
	if r := recover(); r != nil {
		td, ok := r.(tooDeep)
		if !ok {
			panic(r)
		}
		*err = &NestingError{Position: self.file.Position(int(td.idx) - self.base), Limit: self.opts.maxDepth, Backtracking: td.backtracking}
	}
}
