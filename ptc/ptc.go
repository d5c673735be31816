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
package ptc

import (
	"context"
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/codemode/codemode/tools"
)

// Caller issues the nested calls of one parent execution. It is safe for
// concurrent use (Promise.all issues calls concurrently).
type Caller struct {
	reg    *tools.Registry
	parent *tools.Execution
	n      atomic.Int64
}

// New returns the caller for parent's program.
func New(reg *tools.Registry, parent *tools.Execution) *Caller {
	return &Caller{reg: reg, parent: parent}
}

// Call performs one nested call; it is a runtime.CallFunc. The value is
// what the program's binding resolves to: the tool's structured value, or
// its text content as a JSON string when it has none. A failed call
// returns its *errs.Error, which the binding rejects with.
func (c *Caller) Call(ctx context.Context, name string, args json.RawMessage) (string, json.RawMessage, error) {
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
		return id, nil, res.Err
	}
	if res.Value != nil {
		return id, res.Value, nil
	}
	text, _ := json.Marshal(res.TextOf())
	return id, text, nil
}
