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
	// Handler is the body. It runs under the call's deadline and
	// cancellation (ctx). It may return a *Result, an error, or both nil
	// (an empty success). A returned error becomes an error result with the
	// error's code (TOOL_ERROR unless it is an *Error). A panic becomes a
	// TOOL_ERROR result.
	Handler Handler
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
