package tools

import (
	"context"
	"encoding/json"

	"github.com/codemode/codemode/tools/errs"
)

// Tool is what a plugin registers: a name, a description, JSON Schemas and a
// body.
type Tool struct {
	// Name is the tool's name as the model and programs see it. The name
	// "run_code" is reserved.
	Name        string
	Description string
	// InputSchema is a JSON Schema (draft 2020-12 or draft-07) for the
	// arguments. If nil, {"type":"object"}.
	InputSchema json.RawMessage
	// OutputSchema optionally describes the structured value. It is used for
	// documentation (typed declarations), not enforced.
	OutputSchema json.RawMessage
	// Annotations are the tool's behaviour hints (MCP's tool annotations),
	// as its server declares them; nil when it declares none. Policies may
	// match on them; they are hints, not proof.
	Annotations *Annotations
	// Handler is the body. It runs under the call's deadline and
	// cancellation (ctx). It may return a *Result, an error, or both nil
	// (an empty success). A returned error becomes an error result with the
	// error's code (TOOL_ERROR unless it is an *Error). A panic becomes a
	// TOOL_ERROR result.
	Handler Handler
	// BoundsItself declares that Handler returns soon after ctx ends: every
	// wait of its own is bounded by ctx or by a shorter deadline it keeps
	// (code_run: the program's clock, then the engine's grace). The
	// registry then runs it on the caller's goroutine, as for Input.Inline,
	// instead of a goroutine of its own per call. A body that may ignore
	// ctx must leave it false.
	BoundsItself bool
}

// Annotations are a tool's behaviour hints, as MCP defines them. A nil
// field means the server did not say; the Is methods apply MCP's defaults.
type Annotations struct {
	Title           string
	ReadOnlyHint    *bool // the tool does not modify its environment (default false)
	DestructiveHint *bool // it may destroy, not only add (default true; meaningful when not read-only)
	IdempotentHint  *bool // repeating a call with the same arguments has no further effect (default false)
	OpenWorldHint   *bool // it reaches outside entities, such as the web (default true)
}

// IsReadOnly is ReadOnlyHint, false when unset. A nil a is a tool that
// declared nothing.
func (a *Annotations) IsReadOnly() bool { return a != nil && a.ReadOnlyHint != nil && *a.ReadOnlyHint }

// IsDestructive is DestructiveHint, true when unset, and false for a
// read-only tool (MCP: the hint is meaningful only when the tool is not
// read-only).
func (a *Annotations) IsDestructive() bool {
	if a.IsReadOnly() {
		return false
	}
	return a == nil || a.DestructiveHint == nil || *a.DestructiveHint
}

// IsIdempotent is IdempotentHint, false when unset.
func (a *Annotations) IsIdempotent() bool {
	return a != nil && a.IdempotentHint != nil && *a.IdempotentHint
}

// IsOpenWorld is OpenWorldHint, true when unset.
func (a *Annotations) IsOpenWorld() bool {
	return a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint
}

// Handler is a tool body. The *Execution is read-only.
type Handler func(ctx context.Context, e *Execution) (*Result, error)

// Content is a content block of a result: [Text] or [Image]. The interface is
// sealed.
type Content interface{ isContent() }

// Text is a text content block.
type Text struct{ Text string }

// Image is an image content block; Data is raw bytes.
type Image struct {
	Data     []byte
	MIMEType string
}

func (Text) isContent()  {}
func (Image) isContent() {}

// Result is the outcome of an execution.
type Result struct {
	// Content is what a model sees. A successful result whose body set only
	// Value gets Value's JSON text as its content.
	Content []Content
	// Value is the structured value (JSON), nil when absent. A denied or
	// failed call never has one.
	Value json.RawMessage
	// IsError marks a failed call; Err is then non-nil.
	IsError bool
	Err     *errs.Error
	// AdditionalContexts are extra messages listeners attached.
	AdditionalContexts []string
}

// TextOf joins the text blocks of r.
func (r *Result) TextOf() string {
	if r == nil {
		return ""
	}
	var s string
	for i, c := range r.Content {
		if t, ok := c.(Text); ok {
			if i > 0 && s != "" {
				s += "\n"
			}
			s += t.Text
		}
	}
	return s
}

// TextResult is a convenience for a successful text result.
func TextResult(s string) *Result { return &Result{Content: []Content{Text{Text: s}}} }

// ValueResult is a convenience for a successful structured result.
func ValueResult(v any) (*Result, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &Result{Value: b}, nil
}

// errorResult is the shape of every failed call: "Error: <message>" and no
// value (docs/contract.md#pipeline).
func errorResult(err *errs.Error) *Result {
	return &Result{Content: []Content{Text{Text: "Error: " + err.Error()}}, IsError: true, Err: err}
}
