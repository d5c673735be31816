package gojaengine

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/tools/errs"
)

// fail maps an error out of the VM to the run's outcome.
func (r *run) fail(err error) *errs.Error {
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	var ex *goja.Exception
	if errors.As(err, &ie) || errors.As(err, &so) {
		// goja leaves a VM whose run was aborted by an uncatchable error
		// with a stale call stack: later runs never execute promise jobs.
		r.abrupt = true
	}
	switch {
	case errors.As(err, &ie):
		if e, ok := ie.Value().(*errs.Error); ok {
			return e
		}
		return r.killedErr()
	case errors.As(err, &so):
		return &errs.Error{
			Code:    errs.CodeStackOverflow,
			Message: "Maximum call stack size exceeded: the program recursed deeper than " + strconv.Itoa(r.st.depth) + " calls",
			Info:    r.positionInfo(so.String()),
		}
	case errors.As(err, &ex):
		return r.thrown(ex.Value())
	}
	return &errs.Error{Code: errs.CodeInternal, Message: "gojaengine: " + err.Error(), Err: err}
}

// thrown maps an uncaught exception or rejection. A rejection of a tool
// binding keeps the tool call's code; anything else is RUNTIME_ERROR.
func (r *run) thrown(v goja.Value) *errs.Error {
	obj, _ := v.(*goja.Object)
	if obj != nil {
		stack := ""
		if s := obj.Get("stack"); s != nil && !goja.IsUndefined(s) {
			stack = s.String()
		}
		if code, ok := r.st.bindingErrs[obj]; ok {
			e := &errs.Error{Code: code, Message: obj.Get("message").String()}
			if info := obj.Get("info"); info != nil && !goja.IsUndefined(info) {
				if m, ok := info.Export().(map[string]any); ok {
					e.Info = m
				}
			}
			return e
		}
		if msg := obj.Get("message"); msg != nil && !goja.IsUndefined(msg) {
			name := "Error"
			if n := obj.Get("name"); n != nil && !goja.IsUndefined(n) {
				name = n.String()
			}
			return &errs.Error{Code: errs.CodeRuntimeError, Message: name + ": " + msg.String(), Info: r.positionInfo(stack)}
		}
	}
	desc := ""
	if out, err := r.st.stringify(goja.Undefined(), v); err == nil && out != nil && !goja.IsUndefined(out) {
		desc = out.String()
	} else if v != nil {
		desc = v.String()
	}
	return &errs.Error{Code: errs.CodeRuntimeError, Message: "Uncaught " + desc}
}

// stackPos matches a position in a goja stack trace: "name:line:col(pc)".
var stackPos = regexp.MustCompile(`([^\s()]+):(\d+):(\d+)(?:\(\d+\))?`)

// positionInfo rewrites a goja stack to the user's lines (dropping goja's
// program counters) and extracts the innermost position in the program.
func (r *run) positionInfo(stack string) map[string]any {
	if stack == "" {
		return nil
	}
	info := map[string]any{}
	info["stack"] = strings.TrimRight(r.mapPositions(stack, func(line, col int) {
		if _, ok := info["line"]; !ok {
			info["line"], info["column"] = line, col
		}
	}), " \t\r\n")
	return info
}

// mapPositions rewrites each position in the program found in text to the
// user's line, calling seen (if not nil) with each, innermost first.
func (r *run) mapPositions(text string, seen func(line, col int)) string {
	name := r.job.Name
	mapped := stackPos.ReplaceAllStringFunc(text, func(m string) string {
		sm := stackPos.FindStringSubmatch(m)
		if sm[1] != name && !strings.HasSuffix(sm[1], ".ts") {
			return m
		}
		line, _ := strconv.Atoi(sm[2])
		col, _ := strconv.Atoi(sm[3])
		line -= r.job.LineOffset
		if line < 1 {
			line = 1
		}
		if seen != nil && line <= r.lastLine() {
			seen(line, col)
		}
		return sm[1] + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col)
	})
	mapped = engine.DropWrapperFrames(mapped, r.job.SourceLines, name, strings.TrimSuffix(name, ".js")+".ts")
	return engine.DropInternalFrames(mapped, "codemode:prelude")
}

// lastLine is the user's last line, or a line beyond any when unknown.
func (r *run) lastLine() int {
	if r.job.SourceLines > 0 {
		return r.job.SourceLines
	}
	return int(^uint(0) >> 1)
}

// logText is console output with the stacks it shows (a logged Error)
// mapped to the user's lines, like an uncaught error's.
func (r *run) logText(text string) string {
	if r.job.Name == "" || !strings.Contains(text, r.job.Name+":") && !strings.Contains(text, ".ts:") {
		return text
	}
	return r.mapPositions(text, nil)
}

func jsonError(msg string) *errs.Error {
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "circular"):
		return errs.Errorf(errs.CodeRuntimeError, "the return value contains a cycle (an object that refers to itself), which JSON cannot represent: %s", msg)
	case strings.Contains(low, "bigint"):
		return errs.Errorf(errs.CodeRuntimeError, "the return value contains a BigInt, which JSON cannot represent; convert it with String() or Number(): %s", msg)
	}
	return errs.Errorf(errs.CodeRuntimeError, "the return value cannot be converted to JSON: %s", msg)
}

// syntaxErr maps a parse or compile error of the script to SYNTAX_ERROR at
// the user's line.
func syntaxErr(err error, lineOffset int) *errs.Error {
	line, col, msg := 0, 0, err.Error()
	var list parser.ErrorList
	var ce *goja.CompilerSyntaxError
	switch {
	case errors.As(err, &list) && len(list) > 0:
		line, col, msg = list[0].Position.Line, list[0].Position.Column, list[0].Message
	case errors.As(err, &ce):
		if ce.File != nil {
			p := ce.File.Position(ce.Offset)
			line, col = p.Line, p.Column
		}
		msg = ce.Message
	}
	line -= lineOffset
	if line < 1 {
		line = 1
	}
	return &errs.Error{
		Code:    errs.CodeSyntaxError,
		Message: "SyntaxError: " + msg + " (line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col) + ")",
		Info:    map[string]any{"line": line, "column": col},
		Err:     err,
	}
}

func ctxError(ctx context.Context) *errs.Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &errs.Error{Code: errs.CodeTimeout, Message: "the program exceeded its deadline", Err: ctx.Err()}
	}
	return &errs.Error{Code: errs.CodeCancelled, Message: "the run was cancelled", Err: ctx.Err()}
}
