package tools

import (
	"context"
	"encoding/json"
)

// Decision is a pre-execute verdict: [Allow], [Deny], [Cancel] or [Ask]. The
// interface is sealed.
type Decision interface{ isDecision() }

// Allow lets the call proceed.
type Allow struct{}

// Deny refuses the call; the result is an error whose text is
// "Error: <Reason>". Info is optional detail carried on the error.
type Deny struct {
	Reason string
	Info   map[string]any
}

// Cancel drops the call; the result is a CANCELLED error.
type Cancel struct{}

// Ask sends the call to the approval service.
type Ask struct{ Reason string }

func (Allow) isDecision()  {}
func (Deny) isDecision()   {}
func (Cancel) isDecision() {}
func (Ask) isDecision()    {}

// PreExecute is a listener of the pre-execute waterfall. Listeners run in
// registration order; each may call next to hear what the rest decide, and
// returns the decision that stands. A nil return means Allow.
type PreExecute func(ctx context.Context, e *Execution, next func() Decision) Decision

// Guard is a monotonic check run after the waterfall and approval: a
// non-empty reason denies, and nothing can turn that back into allow.
type Guard func(e *Execution) (reason string)

// ExecuteHook is a listener of the dispatch waterfall, wrapped around the
// tool body. It may observe or replace the outcome, or call next with a
// derived context.
type ExecuteHook func(ctx context.Context, e *Execution, next func(context.Context) (*Result, error)) (*Result, error)

// PostDecision is a post-execute verdict: [Accept] or [Block]. Sealed.
type PostDecision interface{ isPostDecision() }

// Accept keeps the result, optionally replacing its content or its value
// (set at most one) and attaching additional contexts.
type Accept struct {
	Content            []Content
	Value              json.RawMessage
	AdditionalContexts []string
}

// Block turns the result into an error whose message is the feedback.
type Block struct {
	Feedback           []Content
	AdditionalContexts []string
}

func (Accept) isPostDecision() {}
func (Block) isPostDecision()  {}

// PostExecute is a listener of the post-execute waterfall. r is the result
// so far; it must not be modified (return a decision instead). A nil return
// means Accept{}.
type PostExecute func(ctx context.Context, e *Execution, r *Result, next func() PostDecision) PostDecision

// Approver decides Ask verdicts. Approve is called from the executing
// goroutine and may block (honouring ctx). An error refuses the call: the
// approval check fails closed. An error that is a DENIED *errs.Error
// becomes the call's error as it is (so the approver can say why);
// any other error reads "approval failed: <error>".
type Approver interface {
	Approve(ctx context.Context, e *Execution, reason string) (bool, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, e *Execution, reason string) (bool, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, e *Execution, reason string) (bool, error) {
	return f(ctx, e, reason)
}

// ApproveAll approves every ask.
var ApproveAll Approver = ApproverFunc(func(context.Context, *Execution, string) (bool, error) { return true, nil })

// RefuseAll refuses every ask; it is the default policy.
var RefuseAll Approver = ApproverFunc(func(context.Context, *Execution, string) (bool, error) { return false, nil })
