package engine

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/go-sourcemap/sourcemap"

	"github.com/codemode/codemode/tools/errs"
)

// thrown classifies an exception that reached the top of the program.
func (r *Run) thrown(t *Thrown, compile bool) *errs.Error {
	if t.Code != "" {
		// A binding's rejection that reached the top keeps the call's
		// code, message and info.
		e := &errs.Error{Code: errs.Code(t.Code), Message: t.Message}
		if m, ok := t.Info.(map[string]any); ok {
			e.Info = m
		}
		return e
	}
	if t.Plain {
		return errs.Errorf(errs.CodeRuntimeError, "%s", t.Message)
	}
	stack, line, col := r.mapStack(t.Stack)
	if t.Line > 0 {
		line, col = max(t.Line-r.job.LineOffset, 1), t.Column
	}
	if compile && t.Name == "SyntaxError" && r.job.SourceLines > 0 && (line == 0 || line > r.job.SourceLines) {
		// The engine's parser stopped in the wrapper after the user's
		// text (`return 1+`): the program ended too early.
		if line == 0 {
			line = r.pastEnd(t.Stack)
		}
		if line > r.job.SourceLines {
			line, col = r.job.SourceLines, r.job.EndColumn
			if strings.Contains(t.Message, "}") {
				t = &Thrown{Name: t.Name, IsError: true, Message: "unexpected end of input"}
			}
		}
	}
	var msg string
	switch {
	case t.IsError && t.Name != "":
		msg = t.Name + ": " + t.Message
	case t.IsError:
		msg = t.Message
	default:
		msg = "Uncaught " + t.Message
	}
	info := map[string]any{}
	if stack != "" {
		info["stack"] = stack
	}
	if line > 0 {
		info["line"], info["column"] = line, col
	}
	code := errs.CodeRuntimeError
	switch {
	case compile && t.Name == "SyntaxError":
		code = errs.CodeSyntaxError
		if line > 0 {
			msg = fmt.Sprintf("%s (line %d, column %d)", msg, line, col)
		}
	case (t.Name == "RangeError" || t.Name == "InternalError") &&
		(strings.Contains(t.Message, "call stack size exceeded") || strings.Contains(t.Message, "stack overflow")):
		code = errs.CodeStackOverflow
	case t.Name == "RangeError" && strings.HasPrefix(t.Message, RegexpTimeoutMessage):
		// goja's regexp2 match timeout (its backtracking cannot be
		// interrupted): the same cause QuickJS ends at the deadline.
		code = errs.CodeTimeout
	case t.Name == "InternalError" && t.Message == "string too long":
		// QuickJS's longest string (2^30 - 1 characters): a string bomb,
		// which goja's memory guard ends as MEMORY_LIMIT.
		code = errs.CodeMemoryLimit
	}
	if len(info) == 0 {
		info = nil
	}
	return &errs.Error{Code: code, Message: msg, Info: info}
}

// RegexpTimeoutMessage begins the RangeError goja's patched regexp throws
// when a match outlives regexp2's match timeout (runtime/internal/goja
// regexp.go); uncaught, it ends the run as TIMEOUT on both engines.
const RegexpTimeoutMessage = "the regular expression took too long to match"

// pastEnd returns the first script position in a stack, in user lines
// (which may be past the user's source), or 0.
func (r *Run) pastEnd(stack string) int {
	re := positionRE(r.scriptName(), false)
	m := re.FindStringSubmatch(stack)
	if m == nil {
		return 0
	}
	l, _ := strconv.Atoi(m[3])
	return max(l-r.job.LineOffset, 1)
}

// fault classifies a VM that stopped.
func (r *Run) fault(f *Fault) *errs.Error {
	switch f.Kind {
	case FaultInterrupted:
		return &errs.Error{Code: errs.CodeInternal, Message: r.env.eng.caps.Name + " engine: the run was interrupted without a reason", Err: f}
	case FaultStackOverflow:
		e := &errs.Error{Code: errs.CodeStackOverflow, Message: "Maximum call stack size exceeded: the program recursed deeper than " + strconv.Itoa(r.env.cfg.MaxStackDepth) + " calls"}
		if f.Stack != "" {
			stack, line, col := r.mapStack(f.Stack)
			e.Info = map[string]any{"stack": stack}
			if line > 0 {
				e.Info["line"], e.Info["column"] = line, col
			}
		}
		return e
	case FaultMemory:
		return &errs.Error{Code: errs.CodeMemoryLimit, Message: f.Message, Info: f.Info, Err: f.Err}
	}
	return &errs.Error{Code: errs.CodeInternal, Message: fmt.Sprintf("the JavaScript engine crashed: %v; the environment was discarded", f), Info: f.Info, Err: f}
}

// timeoutError is the kill of a run that reached Job.Deadline.
func timeoutError(limit string) *errs.Error {
	return &errs.Error{Code: errs.CodeTimeout, Message: "the program exceeded its time limit (" + limit + ")"}
}

// ctxError is the kill of a run whose context ended.
func ctxError(ctx context.Context) *errs.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &errs.Error{Code: errs.CodeTimeout, Message: "the program exceeded its deadline", Err: ctx.Err()}
	}
	return &errs.Error{Code: errs.CodeCancelled, Message: "the run was cancelled", Err: ctx.Err()}
}

// mapStack rewrites a stack's positions to the user's source and returns
// the innermost position in it.
func (r *Run) mapStack(stack string) (string, int, int) {
	first, firstCol := 0, 0
	out := r.mapPositions(stack, func(line, col int) {
		if first == 0 {
			first, firstCol = line, col
		}
	})
	return strings.TrimRight(out, " \t\r\n"), first, firstCol
}

// logText is console output with the stacks it shows (a logged Error)
// mapped to the user's lines, like an uncaught error's.
func (r *Run) logText(text string) string {
	if !strings.Contains(text, r.scriptName()) && !(r.env.eng.caps.SourceMaps && strings.Contains(text, ".ts:")) {
		return text
	}
	return r.mapPositions(text, nil)
}

func (r *Run) scriptName() string {
	if r.job.Name == "" {
		return "program.js"
	}
	return r.job.Name
}

// positionRE returns the regexp of a position in the script, or (with
// ts) in any TypeScript source, in a stack: "name:line[:column][(pc)]"
// (goja adds a program counter in parentheses), not preceded by what
// would make it part of a longer file name.
func positionRE(name string, ts bool) *regexp.Regexp {
	key := name
	if ts {
		key += "\x00ts"
	}
	if re, ok := positionREs.Load(key); ok {
		return re.(*regexp.Regexp)
	}
	file := regexp.QuoteMeta(name)
	if ts {
		file += `|[^\s():]*\.ts`
	}
	re := regexp.MustCompile(`(^|[^\w.\-/])(` + file + `):(\d+)(?::(\d+))?(?:\(\d+\))?`)
	positionREs.Store(key, re)
	return re
}

var positionREs sync.Map // string → *regexp.Regexp

// mapPositions rewrites each position in the script found in text to the
// user's line (through the TypeScript source map, unless the VM applied
// it), calling seen (if not nil) with each position within the user's
// source, innermost first; then drops the wrapper's and the prelude's
// frames.
func (r *Run) mapPositions(text string, seen func(line, col int)) string {
	name := r.scriptName()
	tsName := strings.TrimSuffix(name, ".js") + ".ts"
	maps := r.env.eng.caps.SourceMaps
	re := positionRE(name, maps)
	var sm *sourcemap.Consumer
	smRead := false
	mapped := re.ReplaceAllStringFunc(text, func(m string) string {
		sub := re.FindStringSubmatch(m)
		lead, file := sub[1], sub[2]
		line, _ := strconv.Atoi(sub[3])
		col, hasCol := 0, sub[4] != ""
		if hasCol {
			col, _ = strconv.Atoi(sub[4])
		}
		if !maps {
			if !smRead {
				sm, smRead = inlineSourceMap(r.job.Script), true
			}
			if sm != nil {
				if _, _, l, c, ok := sm.Source(line, col); ok {
					line, col = l, c
				}
			}
		}
		line = max(line-r.job.LineOffset, 1)
		if seen != nil && (r.job.SourceLines <= 0 || line <= r.job.SourceLines) {
			seen(line, col)
		}
		if !hasCol {
			return lead + file + ":" + strconv.Itoa(line)
		}
		return lead + file + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	})
	return DropInternalFrames(DropWrapperFrames(mapped, r.job.SourceLines, name, tsName), PreludeName)
}

const sourceMapPrefix = "\n//# sourceMappingURL=data:application/json;base64,"

// inlineSourceMap returns the source map at the end of a prepared
// TypeScript script (package source appends it), or nil.
func inlineSourceMap(script string) *sourcemap.Consumer {
	k := strings.LastIndex(script, sourceMapPrefix)
	if k < 0 {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(script[k+len(sourceMapPrefix):]))
	if err != nil {
		return nil
	}
	sm, err := sourcemap.Parse("", raw)
	if err != nil {
		return nil
	}
	return sm
}
