package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

// Input is what a caller passes to Execute.
type Input struct {
	// CallID identifies the call; nested calls use "<parent>:ptc:<n>".
	CallID string
	// RootCallID is the call id of the root of a nested tree. Empty means
	// absent: a root call is its own root.
	RootCallID string
	Name       string
	// Arguments must be a JSON object: a json.RawMessage / []byte of JSON
	// text, or a value built from map[string]any, []any, string, bool, nil
	// and numbers. Anything else (funcs, channels, structs, NaN) is refused
	// with INVALID_ARGUMENTS rather than silently changed. nil means {}.
	Arguments any
	// Agent is the agent the call runs for; nil means none (global view).
	Agent *Agent
	// Parent is the token of the execution this call is nested in; the zero
	// Token means a root call. Only a token of an execution of the same
	// registry that is still in progress is accepted.
	Parent Token
	// Timeout bounds this call. If zero, Options.DefaultTimeout.
	Timeout time.Duration
	// Inline runs the body on the calling goroutine. By default the body
	// runs on a goroutine of its own, so that Execute returns at the
	// deadline even when a body ignores ctx. Inline saves that hand-off
	// (about 3 µs) for callers that bound their own waiting: a body that
	// ignores ctx then holds the caller until it returns, and a result that
	// comes back after the deadline is still TIMEOUT. Nested calls from
	// programs use it; the engine abandons a stuck program at its deadline.
	Inline bool
}

// Token identifies one execution. It cannot be constructed outside this
// package, so holding one proves a running execution handed it out: that is
// how nested calls are told apart from direct ones. The zero Token is absent.
type Token struct{ e *Execution }

// IsZero reports whether t is absent.
func (t Token) IsZero() bool { return t.e == nil }

// CallID is the call id of the execution t identifies ("" for the zero Token).
func (t Token) CallID() string {
	if t.e == nil {
		return ""
	}
	return t.e.callID
}

// Execution is the record of one call, handed to listeners, guards and the
// body. It is read-only: arguments are a snapshot that nothing can rewrite.
type Execution struct {
	reg        *Registry
	callID     string
	rootCallID string
	name       string
	args       string // the JSON snapshot; a string, so nobody can mutate it
	agent      *Agent
	parent     Token
	info       *registered // nil until the name resolved
	start      time.Time
	done       atomic.Bool
	inline     bool          // Input.Inline
	timeout    time.Duration // Input.Timeout
	arguments  any           // Input.Arguments, until the snapshot replaces it
	note       Note
}

// Note is what the pipeline's decision steps decided about one call, for
// the call's record (the audit trail's line). A policy listener and its
// approver fill it in on the call's goroutine; the record is read when the
// call is finalized. It lives in the Execution so that recording a
// decision costs no allocation.
type Note struct {
	Rule       string // "rules[2]", "default"; "" when no policy decided
	Action     string // "allow", "deny", "ask"
	Reason     string
	Approval   string // for an ask: "allow-once", "allow-session", "remembered", "declined", "cancelled", "deny", "timeout", "unavailable", "error"
	AnsweredBy string // the client's name, when a person answered
}

// Note is the call's decision record. Unlike the rest of an Execution it
// is written to, by the steps that decide: only on the call's goroutine,
// before the call is finalized.
func (e *Execution) Note() *Note { return &e.note }

// CallID is the call's id.
func (e *Execution) CallID() string { return e.callID }

// RootCallID is the root call's id (the call's own id for a root call).
func (e *Execution) RootCallID() string { return e.rootCallID }

// Name is the tool name as called.
func (e *Execution) Name() string { return e.name }

// Arguments returns a copy of the argument snapshot.
func (e *Execution) Arguments() json.RawMessage { return json.RawMessage(e.args) }

// ArgumentsText returns the argument snapshot without copying.
func (e *Execution) ArgumentsText() string { return e.args }

// Agent is the calling agent, or nil.
func (e *Execution) Agent() *Agent { return e.agent }

// Parent is the parent execution's token; zero for a root call.
func (e *Execution) Parent() Token { return e.parent }

// ParentCallID is the parent's call id, or "".
func (e *Execution) ParentCallID() string { return e.parent.CallID() }

// Token is this execution's own token, to be passed as Input.Parent by
// nested calls.
func (e *Execution) Token() Token { return Token{e: e} }

// Tool describes the resolved tool; the zero Info until the name resolved.
func (e *Execution) Tool() Info {
	if e.info == nil {
		return Info{}
	}
	return e.info.info()
}

// Start is when Execute began the call.
func (e *Execution) Start() time.Time { return e.start }

// Finished reports whether the execution has been finalized.
func (e *Execution) Finished() bool { return e.done.Load() }

// Execute runs one call through the pipeline of docs/contract.md#pipeline: resolve,
// snapshot, validate, pre-execute waterfall, approval, guards, dispatch,
// post-execute waterfall, finalize. It never panics and never returns nil:
// every failure is an error result with a code.
func (r *Registry) Execute(ctx context.Context, in Input) *Result {
	start := time.Now()
	e := &Execution{reg: r, callID: in.CallID, rootCallID: in.RootCallID, name: in.Name, agent: in.Agent, parent: in.Parent, start: start, inline: in.Inline, timeout: in.Timeout, arguments: in.Arguments}
	if e.rootCallID == "" {
		e.rootCallID = in.CallID
	}
	res := r.run(ctx, e)
	r.finalize(e, res)
	return res
}

// pipeline is steps 1–8, the innermost Executor.
func (r *Registry) pipeline(ctx context.Context, e *Execution) *Result {
	// A parent token must come from a live execution of this registry: a
	// stale or foreign token proves nothing.
	if p := e.parent.e; p != nil && (p.reg != r || p.done.Load()) {
		return errorResult(errs.Errorf(errs.CodeDenied, "parent execution %q is not in progress", p.callID))
	}
	// 1. Resolve.
	if len(e.name) > MaxNameBytes {
		return errorResult(&errs.Error{Code: errs.CodeUnknownTool, Message: fmt.Sprintf("unknown tool: the name is %d bytes long, and no tool name is longer than %d", len(e.name), MaxNameBytes)})
	}
	g, _, ok := r.tools.Resolve(e.name, e.agent.view())
	if !ok {
		return errorResult(r.unknown(e.name, e.agent))
	}
	e.info = g
	// 2. Snapshot.
	text, value, err := snapshot(e.arguments, g.schema != nil, r.opts.MaxArgumentBytes)
	e.arguments = nil // the snapshot is what the call sees from here on
	if err != nil {
		return errorResult(err)
	}
	e.args = text
	// 3. Validate (a nil schema is {"type":"object"}: the snapshot checked it).
	if g.schema != nil && (g.flat == nil || !g.flat.valid(value)) {
		if err := g.schema.Validate(value); err != nil {
			return errorResult(validationError(e.name, err))
		}
	}
	// 4–6. Policy.
	var res *Result
	if err := r.decide(ctx, e); err != nil {
		res = errorResult(err)
	} else {
		// 7. Dispatch.
		res = r.dispatch(ctx, e, e.timeout, e.inline || g.tool.BoundsItself)
	}
	// 8. Post-execute: denied calls pass here too.
	return r.postExecute(ctx, e, res)
}

// decide runs the pre-execute waterfall, approval and guards, returning nil
// when the call may proceed.
func (r *Registry) decide(ctx context.Context, e *Execution) *errs.Error {
	d := r.preWaterfall(ctx, e)
	switch d := d.(type) {
	case Deny:
		return &errs.Error{Code: errs.CodeDenied, Message: d.Reason, Info: d.Info}
	case Cancel:
		return errs.Errorf(errs.CodeCancelled, "cancelled by policy")
	case Ask:
		ok, err := r.approve(ctx, e, d.Reason)
		if err != nil {
			// An approver that says why in a DENIED error of its own (the
			// user declined, the client cannot ask) is passed on as is.
			var denied *errs.Error
			if errors.As(err, &denied) && denied.Code == errs.CodeDenied {
				return denied
			}
			return &errs.Error{Code: errs.CodeDenied, Message: "approval failed: " + err.Error(), Err: err}
		}
		if !ok {
			msg := "approval refused"
			if d.Reason != "" {
				msg += ": " + d.Reason
			}
			return &errs.Error{Code: errs.CodeDenied, Message: msg}
		}
	}
	for _, g := range r.guards.load() {
		if reason := r.runGuard(*g, e); reason != "" {
			return &errs.Error{Code: errs.CodeDenied, Message: reason}
		}
	}
	return nil
}

func (r *Registry) preWaterfall(ctx context.Context, e *Execution) (d Decision) {
	ls := r.pre.load()
	if len(ls) == 0 {
		return Allow{}
	}
	defer func() {
		if p := recover(); p != nil {
			// Fail closed: a policy that cannot decide denies.
			d = Deny{Reason: fmt.Sprintf("pre-execute listener panicked: %v", p)}
		}
	}()
	if len(ls) == 1 {
		// The usual chain (one policy): its next is the end of the chain,
		// and the waterfall allocates nothing.
		if out := (*ls[0])(ctx, e, allowRest); out != nil {
			return out
		}
		return Allow{}
	}
	// One closure walks the whole chain: each call of next advances i, so a
	// waterfall costs one allocation however many listeners it has.
	i := -1
	var next func() Decision
	next = func() Decision {
		i++
		if i >= len(ls) {
			return Allow{}
		}
		out := (*ls[i])(ctx, e, next)
		if out == nil {
			return Allow{}
		}
		return out
	}
	return next()
}

// allowRest is the next of a chain's last listener.
func allowRest() Decision { return Allow{} }

func (r *Registry) approve(ctx context.Context, e *Execution, reason string) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("approver panicked: %v", p)
		}
	}()
	return r.opts.Approver.Approve(ctx, e, reason)
}

func (r *Registry) runGuard(g Guard, e *Execution) (reason string) {
	defer func() {
		if p := recover(); p != nil {
			reason = fmt.Sprintf("guard panicked: %v", p)
		}
	}()
	return g(e)
}

type outcome struct {
	res *Result
	err error
}

// dispatch runs the execute waterfall and the body under the deadline. The
// body runs on its own goroutine so that a body ignoring ctx still cannot
// hold the caller past the deadline, unless the caller asked for inline.
func (r *Registry) dispatch(ctx context.Context, e *Execution, timeout time.Duration, inline bool) *Result {
	if timeout == 0 {
		timeout = r.opts.DefaultTimeout
	}
	if inline {
		return r.dispatchInline(ctx, e, timeout)
	}
	var cancel context.CancelFunc
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	} else {
		ctx, cancel = context.WithCancel(ctx)
	}
	defer cancel()
	if err := ctx.Err(); err != nil {
		return errorResult(ctxError(ctx, e.name))
	}
	ch := make(chan outcome, 1)
	bodyPool.run(func() {
		o := r.runBody(ctx, e)
		ch <- o
	})
	select {
	case o := <-ch:
		return r.normalize(ctx, e, o)
	case <-ctx.Done():
		return errorResult(ctxError(ctx, e.name))
	}
}

// dispatchInline runs the body on the caller's goroutine. Nothing is left
// running when the body returns, so ctx only needs a child when this call's
// timeout ends before the caller's deadline.
func (r *Registry) dispatchInline(ctx context.Context, e *Execution, timeout time.Duration) *Result {
	if timeout > 0 {
		d := time.Now().Add(timeout)
		if cur, ok := ctx.Deadline(); !ok || d.Before(cur) {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, d)
			defer cancel()
		}
	}
	if err := ctx.Err(); err != nil {
		return errorResult(ctxError(ctx, e.name))
	}
	o := r.runBody(ctx, e)
	if ctx.Err() != nil { // late: the same answer a goroutine body would get
		return errorResult(ctxError(ctx, e.name))
	}
	return r.normalize(ctx, e, o)
}

// runBody runs the execute waterfall and the body, turning a panic into a
// TOOL_ERROR.
func (r *Registry) runBody(ctx context.Context, e *Execution) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o = outcome{err: &errs.Error{Code: errs.CodeToolError, Message: fmt.Sprintf("tool %s panicked: %v", e.name, p), Info: map[string]any{"stack": string(debug.Stack())}}}
		}
	}()
	o.res, o.err = r.runExecHooks(ctx, e)
	return o
}

func (r *Registry) runExecHooks(ctx context.Context, e *Execution) (*Result, error) {
	hooks := r.exec.load()
	if len(hooks) == 0 {
		return e.info.tool.Handler(ctx, e)
	}
	var step func(i int, ctx context.Context) (*Result, error)
	step = func(i int, ctx context.Context) (*Result, error) {
		if i == len(hooks) {
			return e.info.tool.Handler(ctx, e)
		}
		return (*hooks[i])(ctx, e, func(c context.Context) (*Result, error) { return step(i+1, c) })
	}
	return step(0, ctx)
}

func ctxError(ctx context.Context, name string) *errs.Error {
	if ctx.Err() == context.DeadlineExceeded {
		return &errs.Error{Code: errs.CodeTimeout, Message: fmt.Sprintf("tool %s timed out", name), Err: ctx.Err()}
	}
	return &errs.Error{Code: errs.CodeCancelled, Message: fmt.Sprintf("tool %s was cancelled", name), Err: ctx.Err()}
}

// normalize turns a body's (result, error) pair into one result.
func (r *Registry) normalize(ctx context.Context, e *Execution, o outcome) *Result {
	if o.err != nil {
		err := errs.AsError(o.err)
		if err.Code == errs.CodeCancelled || err.Code == errs.CodeTimeout {
			if ctx.Err() != nil {
				err = ctxError(ctx, e.name)
			}
		}
		res := errorResult(err)
		if o.res != nil {
			res.AdditionalContexts = o.res.AdditionalContexts
		}
		return res
	}
	res := o.res
	if res == nil {
		res = &Result{}
	}
	if res.IsError {
		if res.Err == nil {
			res.Err = &errs.Error{Code: errs.CodeToolError, Message: strings.TrimPrefix(res.TextOf(), "Error: ")}
		}
		res.Value = nil
		if len(res.Content) == 0 {
			res.Content = []Content{Text{Text: "Error: " + res.Err.Error()}}
		}
		return res
	}
	if len(res.Value) > 0 && !json.Valid(res.Value) {
		return errorResult(errs.Errorf(errs.CodeToolError, "tool %s returned a structured value that is not JSON", e.name))
	}
	if len(res.Content) == 0 && len(res.Value) > 0 {
		res.Content = []Content{Text{Text: string(res.Value)}}
	}
	return res
}

func (r *Registry) postExecute(ctx context.Context, e *Execution, res *Result) (out *Result) {
	ls := r.post.load()
	if len(ls) == 0 {
		return res
	}
	defer func() {
		if p := recover(); p != nil {
			out = errorResult(errs.Errorf(errs.CodeInternal, "post-execute listener panicked: %v", p))
		}
	}()
	var step func(i int) PostDecision
	step = func(i int) PostDecision {
		if i == len(ls) {
			return Accept{}
		}
		d := (*ls[i])(ctx, e, res, func() PostDecision { return step(i + 1) })
		if d == nil {
			return Accept{}
		}
		return d
	}
	switch d := step(0).(type) {
	case Accept:
		if d.Content == nil && d.Value == nil && d.AdditionalContexts == nil {
			return res
		}
		c := *res
		if d.Value != nil && !res.IsError {
			c.Value = d.Value
			c.Content = []Content{Text{Text: string(d.Value)}}
		}
		if d.Content != nil {
			c.Content = d.Content
		}
		c.AdditionalContexts = append(append([]string(nil), res.AdditionalContexts...), d.AdditionalContexts...)
		return &c
	case Block:
		msg := (&Result{Content: d.Feedback}).TextOf()
		if msg == "" {
			msg = "blocked by policy"
		}
		c := errorResult(&errs.Error{Code: errs.CodeDenied, Message: msg})
		c.Content = d.Feedback
		c.AdditionalContexts = append(append([]string(nil), res.AdditionalContexts...), d.AdditionalContexts...)
		return c
	}
	return res
}

func (r *Registry) finalize(e *Execution, res *Result) {
	e.done.Store(true)
	subs := r.subs.load()
	logging := r.log != nil && r.log.Enabled(context.Background(), slog.LevelInfo)
	if len(subs) == 0 && !logging {
		return // nobody reads the event: not even the clock is read
	}
	ev := ResultEvent{
		CallID: e.callID, RootCallID: e.rootCallID, ParentCallID: e.parent.CallID(),
		Name: e.name, Duration: time.Since(e.start), IsError: res.IsError,
	}
	if e.agent != nil {
		ev.Agent = e.agent.id
	}
	if res.Err != nil {
		ev.Code = res.Err.Code
	}
	for _, s := range subs {
		func() {
			defer func() { _ = recover() }()
			(*s)(ev)
		}()
	}
	if logging {
		r.log.LogAttrs(context.Background(), slog.LevelInfo, "tool/result",
			slog.String("callId", ev.CallID), slog.String("rootCallId", ev.RootCallID),
			slog.String("parentCallId", ev.ParentCallID), slog.String("name", ev.Name),
			slog.Duration("duration", ev.Duration), slog.Bool("isError", ev.IsError), slog.String("code", string(ev.Code)))
	}
}
