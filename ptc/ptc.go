// Package ptc makes programmatic tool calls: the nested calls a code-mode
// program makes are executed through the registry's public Execute, with
// the parent's token, exactly like direct calls (docs/contract.md#nested).
//
// For a parent execution P, the n-th nested call (n from 1) gets:
//
//   - call id P.CallID + ":ptc:" + n,
//   - root call id P.RootCallID (P.CallID when P is a root),
//   - parent P.Token, agent P.Agent, and the program's cancellation.
//
// So validation, pre-execute policy, approval, guards, post-execute and the
// tool/result log all apply to nested calls. Masked tools stay in the
// registry; programs can call them.
//
// # What a binding resolves to
//
// [Value] shapes a successful result into the value a program's binding
// resolves to, in this order:
//
//  1. the structured content (tools.Result.Value), when there is one;
//  2. when the content is text only and that text is a JSON object or
//     array, the parsed value (most MCP servers send JSON as text without
//     structured content);
//  3. when the content is text only, the text as a string;
//  4. otherwise (an image among the blocks) the MCP-shaped object
//     {content: [{type: "text", text} | {type: "image", data, mimeType}]},
//     data in base64.
//
// A failed call rejects with its *errs.Error, which [Options.Explain] may
// reword (code mode adds the tool's signature). [Caller.Raw] makes a call
// and returns the whole result, unshaped, for the rare program that needs
// it.
package ptc

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// Options configures a Caller. The zero value is valid.
type Options struct {
	// Explain, if set, is given every failed nested call's tool name and
	// error and returns the error the binding rejects with: the same, or a
	// more helpful one (it must not return nil). It is called on the
	// calling goroutine, concurrently for concurrent calls.
	Explain func(name string, err *errs.Error) *errs.Error
}

// Caller issues the nested calls of one parent execution. It is safe for
// concurrent use (Promise.all issues calls concurrently).
type Caller struct {
	reg    *tools.Registry
	parent *tools.Execution
	opts   Options
	n      atomic.Int64
}

// New returns the caller for parent's program.
func New(reg *tools.Registry, parent *tools.Execution, opts Options) *Caller {
	return &Caller{reg: reg, parent: parent, opts: opts}
}

// Call performs one nested call; it is a runtime.CallFunc. The value is
// what the program's binding resolves to (see [Value]). A failed call
// returns its *errs.Error, which the binding rejects with.
func (c *Caller) Call(ctx context.Context, name string, args json.RawMessage) (string, json.RawMessage, error) {
	id, res := c.Raw(ctx, name, args)
	if res.IsError {
		return id, nil, res.Err // explained by Raw
	}
	return id, Value(res), nil
}

// Raw performs one nested call, like Call, and returns the registry's
// whole result: its content blocks, structured value and error. It never
// fails otherwise (a failed call is a result with IsError); a failed
// call's error has been through Options.Explain.
func (c *Caller) Raw(ctx context.Context, name string, args json.RawMessage) (string, *tools.Result) {
	id := c.parent.CallID() + ":ptc:" + strconv.FormatInt(c.n.Add(1), 10)
	res := c.reg.Execute(ctx, tools.Input{
		CallID:     id,
		RootCallID: c.parent.RootCallID(),
		Name:       name,
		Arguments:  args,
		Agent:      c.parent.Agent(),
		Parent:     c.parent.Token(),
		// The engine bounds its own wait for a stuck call (the program's
		// deadline plus a grace), so the body can skip a goroutine.
		Inline: true,
	})
	if res.IsError {
		if e := c.explain(name, res.Err); e != res.Err {
			cp := *res
			cp.Err = e
			res = &cp
		}
	}
	return id, res
}

func (c *Caller) explain(name string, err *errs.Error) *errs.Error {
	if err == nil {
		err = errs.Errorf(errs.CodeInternal, "tool %s failed without an error", name)
	}
	if c.opts.Explain == nil {
		return err
	}
	if e := c.opts.Explain(name, err); e != nil {
		return e
	}
	return err
}

// Value is the JSON value a binding resolves to for a successful result
// (see the package documentation for the rules).
func Value(res *tools.Result) json.RawMessage {
	if res.Value != nil {
		return res.Value
	}
	for _, c := range res.Content {
		if _, ok := c.(tools.Text); !ok {
			return contentValue(res.Content)
		}
	}
	text := res.TextOf()
	if t := bytes.TrimSpace([]byte(text)); len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t) {
		return json.RawMessage(t)
	}
	b, _ := json.Marshal(text)
	return b
}

// Block is one content block in MCP's shape, as [Value] (for mixed
// content) and code mode's raw call give it to programs: {type: "text",
// text} or {type: "image", data, mimeType}, data in base64.
type Block struct {
	Type     string // "text" or "image"
	Text     string
	Data     []byte
	MIMEType string
}

// MarshalJSON writes the fields of the block's type, and only those.
func (b Block) MarshalJSON() ([]byte, error) {
	if b.Type == "image" {
		return json.Marshal(struct {
			Type     string `json:"type"`
			Data     []byte `json:"data"`
			MIMEType string `json:"mimeType"`
		}{b.Type, b.Data, b.MIMEType})
	}
	return json.Marshal(struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}{b.Type, b.Text})
}

// Blocks converts content to MCP-shaped blocks.
func Blocks(content []tools.Content) []Block {
	out := make([]Block, 0, len(content))
	for _, c := range content {
		switch c := c.(type) {
		case tools.Text:
			out = append(out, Block{Type: "text", Text: c.Text})
		case tools.Image:
			out = append(out, Block{Type: "image", Data: c.Data, MIMEType: c.MIMEType})
		}
	}
	return out
}

func contentValue(content []tools.Content) json.RawMessage {
	b, _ := json.Marshal(struct {
		Content []Block `json:"content"`
	}{Blocks(content)})
	return b
}
