// Package errs is the error vocabulary every layer of codemode shares: a
// stable [Code] per kind of failure, the [Error] value that carries it, the
// sentinels for [errors.Is], and [Suggest], the close-name rule behind "did
// you mean".
//
// It imports nothing of codemode's, so the engines, the source preparer and
// the config parser classify failures without linking the tool registry (as
// wazero's api and sys packages sit under its runtime).
//
// # Codes
//
// Codes are part of codemode's public interface: MCP clients, `codemode run
// --json` and audit lines carry them, and they never change meaning. Every
// failure that crosses a package boundary carries one; [CodeOf] and
// [AsError] classify any error (context errors become TIMEOUT and
// CANCELLED, anything else TOOL_ERROR).
package errs

import (
	"context"
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code. Codes are part of the public
// interface: clients match on them, so they never change meaning.
type Code string

// The error codes. Every failure that crosses a package boundary carries one.
const (
	CodeUnknownTool         Code = "UNKNOWN_TOOL"         // the name does not resolve in the caller's view
	CodeInvalidArguments    Code = "INVALID_ARGUMENTS"    // arguments fail the snapshot or the input schema
	CodeDenied              Code = "DENIED"               // a policy listener, guard or approver said no
	CodeCancelled           Code = "CANCELLED"            // the caller or a listener cancelled the call
	CodeTimeout             Code = "TIMEOUT"              // the call's deadline passed
	CodeToolError           Code = "TOOL_ERROR"           // the tool body failed or panicked
	CodeSyntaxError         Code = "SYNTAX_ERROR"         // a program does not parse
	CodeRuntimeError        Code = "RUNTIME_ERROR"        // a program threw, or returned something JSON cannot hold
	CodeMemoryLimit         Code = "MEMORY_LIMIT"         // a program exceeded its memory budget
	CodeStackOverflow       Code = "STACK_OVERFLOW"       // a program recursed too deep
	CodeSubcallLimit        Code = "SUBCALL_LIMIT"        // a program made too many nested calls
	CodeResultTooLarge      Code = "RESULT_TOO_LARGE"     // a program's return value, or a tool's reply, exceeds its budget
	CodeProgramTooLarge     Code = "PROGRAM_TOO_LARGE"    // a program's text exceeds the code budget
	CodeNestingTooDeep      Code = "NESTING_TOO_DEEP"     // a program nests brackets or operators deeper than the parser may go
	CodeArgumentsTooLarge   Code = "ARGUMENTS_TOO_LARGE"  // a call's arguments exceed the argument budget or the upstream's frame limit
	CodeUpstreamUnavailable Code = "UPSTREAM_UNAVAILABLE" // an upstream MCP server is down or restarting
	CodeOverloaded          Code = "OVERLOADED"           // the process is at a capacity bound (memory budget, stuck runs); retry later
	CodeInternal            Code = "INTERNAL"             // a bug of ours; the message says where
)

// Error is the error value of every failed call: a stable Code, a human
// message, and optional details.
//
// errors.Is(err, errs.ErrTimeout) (and every other sentinel) matches any
// *Error with the same Code, so callers classify failures without importing an
// engine or the MCP SDK.
type Error struct {
	Code    Code
	Message string
	// Info carries optional structured details (for example the failing
	// schema path, or close-name suggestions). It is nil when absent.
	Info map[string]any
	// Err is the underlying cause, if any.
	Err error
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	if e.Message == "" {
		return string(e.Code)
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// Sentinels for errors.Is. They carry only a code.
var (
	ErrUnknownTool         = &Error{Code: CodeUnknownTool}
	ErrInvalidArguments    = &Error{Code: CodeInvalidArguments}
	ErrDenied              = &Error{Code: CodeDenied}
	ErrCancelled           = &Error{Code: CodeCancelled}
	ErrTimeout             = &Error{Code: CodeTimeout}
	ErrToolError           = &Error{Code: CodeToolError}
	ErrSyntaxError         = &Error{Code: CodeSyntaxError}
	ErrRuntimeError        = &Error{Code: CodeRuntimeError}
	ErrMemoryLimit         = &Error{Code: CodeMemoryLimit}
	ErrStackOverflow       = &Error{Code: CodeStackOverflow}
	ErrSubcallLimit        = &Error{Code: CodeSubcallLimit}
	ErrResultTooLarge      = &Error{Code: CodeResultTooLarge}
	ErrProgramTooLarge     = &Error{Code: CodeProgramTooLarge}
	ErrNestingTooDeep      = &Error{Code: CodeNestingTooDeep}
	ErrArgumentsTooLarge   = &Error{Code: CodeArgumentsTooLarge}
	ErrUpstreamUnavailable = &Error{Code: CodeUpstreamUnavailable}
	ErrOverloaded          = &Error{Code: CodeOverloaded}
	ErrInternal            = &Error{Code: CodeInternal}
)

// CodeOf returns the code of err: the Code of the first *Error in its chain,
// TIMEOUT or CANCELLED for context errors, and TOOL_ERROR for anything else.
// CodeOf(nil) is "".
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		if e == nil {
			return "" // a typed nil: no error
		}
		return e.Code
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, context.Canceled):
		return CodeCancelled
	}
	return CodeToolError
}

// AsError converts any error to an *Error, keeping an existing one.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeOf(err), Message: err.Error(), Err: err}
}

// InfoInt is Info[key] as an int: Info values cross JSON, so a number may
// arrive as int, int64 or float64. ok is false when the key is missing or
// holds something else (or e is nil).
func (e *Error) InfoInt(key string) (n int, ok bool) {
	if e == nil {
		return 0, false
	}
	return IntOf(e.Info[key])
}

// IntOf is v as an int when v is an int, int64 or float64.
func IntOf(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		return int(x), true
	}
	return 0, false
}
