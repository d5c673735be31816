package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// envelopeBytes is what a tools/call request adds to its arguments, beyond
// the tool name and the provenance ids: {"jsonrpc":"2.0","id":N,
// "method":"tools/call","params":{"_meta":{…},"name":…,"arguments":…}}
// and the SDK's own _meta, with room to spare.
const envelopeBytes = 512

// call forwards one execution to the upstream tool name.
func (s *server) call(ctx context.Context, e *tools.Execution, name string) (_ *tools.Result, err error) {
	args := e.Arguments()
	meta := mcp.Meta{MetaCallID: e.CallID(), MetaRootCallID: e.RootCallID()}
	if p := e.ParentCallID(); p != "" {
		meta[MetaParentCallID] = p
	}
	// A request over the server's frame limit would be refused by the
	// server's reader, which drops the connection: refuse it here.
	if n, limit := len(args)+len(name)+len(e.CallID())+len(e.RootCallID())+len(e.ParentCallID())+envelopeBytes, s.frameLimit(); n > limit {
		return nil, &errs.Error{
			Code: errs.CodeArgumentsTooLarge,
			Message: fmt.Sprintf("the arguments of %s (%d bytes of JSON) would make a request over the %d-byte message limit of upstream server %q (maxFrameBytes); nothing was sent. "+
				"Send less per call: split the data over several calls, or pass a reference (a path, a URL, an id) instead of the content", e.Name(), len(args), limit, s.name),
			Info: map[string]any{"server": s.name, "bytes": len(args), "limit": limit},
		}
	}
	if trace := s.m.opts.Trace; trace != nil {
		var end func(error)
		ctx, end = trace(ctx, TraceCall{Server: s.name, Tool: name, Meta: meta})
		defer func() { end(err) }()
	}
	params := &mcp.CallToolParams{Meta: meta, Name: name, Arguments: args}
	var stale *mcp.ClientSession
	for {
		sess, err := s.session(ctx, e, stale)
		if err != nil {
			return nil, err
		}
		callCtx, cancel := ctx, context.CancelFunc(func() {})
		if d := s.m.opts.CallTimeout; d > 0 {
			callCtx, cancel = context.WithTimeout(ctx, d)
		}
		start := time.Now()
		res, err := sess.CallTool(callCtx, params)
		s.record(name, args, res, err, start)
		if err != nil && stale == nil && errors.Is(err, mcp.ErrConnectionClosed) && callCtx.Err() == nil {
			// The session had ended before the call reached it, and run
			// has not noticed yet: nothing was sent, so the call waits for
			// the next session like any call made during a restart. A call
			// that was sent is never repeated (a tool need not be
			// idempotent).
			cancel()
			stale = sess
			continue
		}
		if err != nil {
			err = s.callError(callCtx, e, err) // before cancel: it reads callCtx.Err
		}
		cancel()
		if err != nil {
			return nil, err
		}
		return convert(res)
	}
}

// record passes a call to Options.Recorder, unless our frame filter
// answered it.
func (s *server) record(name string, args json.RawMessage, res *mcp.CallToolResult, err error, start time.Time) {
	r := s.m.opts.Recorder
	if r == nil {
		return
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		if _, ours := frameTooLarge(rpcErr); ours {
			return
		}
	}
	r.RecordCall(s.name, fixture.Exchange{Tool: name, Arguments: args, Result: res, Err: err, Start: start, Duration: time.Since(start)})
}

// session returns the server's session, other than stale. While the server
// is starting or restarting it waits for the next session, at most
// Options.ReconnectWait and until ctx is done. It fails at once when the
// manager is closing, when waiting is off, and when the server's next
// attempt is scheduled after the wait would end.
func (s *server) session(ctx context.Context, e *tools.Execution, stale *mcp.ClientSession) (*mcp.ClientSession, error) {
	var (
		until   time.Time // when the wait ends, at the latest
		timer   *time.Timer
		waiting bool
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
		if waiting {
			s.setWaiting(-1)
		}
	}()
	for {
		s.mu.Lock()
		sess, state, lastErr, retryAt, changed := s.sess, s.state, s.lastErr, s.retryAt, s.changed
		s.mu.Unlock()
		if sess != nil && sess != stale {
			return sess, nil
		}
		if state == StateReady { // sess is stale: run has not noticed yet
			state = StateRestarting
		}
		wait := s.m.opts.ReconnectWait
		if state == StateClosed || s.m.ctx.Err() != nil || wait < 0 {
			return nil, s.unavailable(state, lastErr, "")
		}
		if until.IsZero() {
			until = time.Now().Add(wait)
			if d, ok := ctx.Deadline(); ok && d.Before(until) {
				until = d
			}
			timer = time.NewTimer(wait)
			waiting = true
			s.setWaiting(+1)
		}
		if !retryAt.IsZero() && retryAt.After(until) {
			return nil, s.unavailable(state, lastErr, fmt.Sprintf("; its next attempt is in %v", time.Until(retryAt).Round(time.Millisecond)))
		}
		select {
		case <-changed:
		case <-timer.C:
			return nil, s.unavailable(state, lastErr, fmt.Sprintf("; it was not back within %v", wait))
		case <-s.m.ctx.Done():
			return nil, s.unavailable(StateClosed, lastErr, "")
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return nil, &errs.Error{Code: errs.CodeTimeout, Message: fmt.Sprintf("tool %s timed out waiting for upstream server %q to restart", e.Name(), s.name), Err: ctx.Err()}
			}
			return nil, &errs.Error{Code: errs.CodeCancelled, Message: fmt.Sprintf("tool %s was cancelled", e.Name()), Err: ctx.Err()}
		}
	}
}

// unavailable is the UPSTREAM_UNAVAILABLE error of a server in state.
func (s *server) unavailable(state State, lastErr, more string) *errs.Error {
	msg := fmt.Sprintf("upstream server %q is %s", s.name, state)
	if lastErr != "" {
		msg += " (" + lastErr + ")"
	}
	return &errs.Error{Code: errs.CodeUpstreamUnavailable, Message: msg + more, Info: map[string]any{"server": s.name, "state": string(state)}}
}

// callError classifies a failed tools/call: the caller's deadline or
// cancellation, a reply over the frame limit, an error the server answered
// with, or a broken connection.
func (s *server) callError(ctx context.Context, e *tools.Execution, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		// A server that is merely slow answers a ping; a hung one is
		// restarted by run.
		select {
		case s.check <- struct{}{}:
		default:
		}
		return &errs.Error{Code: errs.CodeTimeout, Message: fmt.Sprintf("tool %s timed out waiting for upstream server %q", e.Name(), s.name), Err: err}
	case ctx.Err() != nil:
		return &errs.Error{Code: errs.CodeCancelled, Message: fmt.Sprintf("tool %s was cancelled", e.Name()), Err: err}
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		if d, ok := frameTooLarge(rpcErr); ok {
			size := "over the limit"
			if d.Bytes > 0 {
				size = fmt.Sprintf("%d bytes", d.Bytes)
			}
			return &errs.Error{
				Code: errs.CodeResultTooLarge,
				Message: fmt.Sprintf("the reply of upstream server %q to %s was %s, more than the %d bytes the server may send in one message (maxFrameBytes); it was dropped, and the server is fine. "+
					"Ask for less in one call: filter, paginate, select fewer fields or a smaller range", s.name, e.Name(), size, d.Limit),
				Info: map[string]any{"server": s.name, "limit": d.Limit, "bytes": d.Bytes},
				Err:  err,
			}
		}
		// The server is there and said no (unknown tool, invalid params…).
		return &errs.Error{Code: errs.CodeToolError, Message: fmt.Sprintf("upstream server %q: %s", s.name, rpcErr.Message), Err: err}
	}
	return &errs.Error{
		Code:    errs.CodeUpstreamUnavailable,
		Message: fmt.Sprintf("upstream server %q is unavailable: %v", s.name, err),
		Info:    map[string]any{"server": s.name},
		Err:     err,
	}
}

// frameTooLarge reports whether err is the error reply a frame filter put
// in place of a reply over the limit, and its data.
func frameTooLarge(err *jsonrpc.Error) (frameTooLargeData, bool) {
	var d frameTooLargeData
	if err.Code != frameTooLargeCode || len(err.Data) == 0 || json.Unmarshal(err.Data, &d) != nil || d.Codemode != frameTooLargeMark {
		return frameTooLargeData{}, false
	}
	return d, true
}

// convert maps an MCP tool result to ours: structuredContent → Value, text
// → Text, images → Image; other blocks become a short text note. isError
// becomes a TOOL_ERROR whose message is the upstream text.
func convert(res *mcp.CallToolResult) (*tools.Result, error) {
	var content []tools.Content
	var texts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			content = append(content, tools.Text{Text: c.Text})
			texts = append(texts, c.Text)
		case *mcp.ImageContent:
			content = append(content, tools.Image{Data: c.Data, MIMEType: c.MIMEType})
		case *mcp.AudioContent:
			content = append(content, tools.Text{Text: fmt.Sprintf("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data))})
		case *mcp.ResourceLink:
			content = append(content, tools.Text{Text: fmt.Sprintf("[resource %s]", c.URI)})
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil && r.Text != "" {
				content = append(content, tools.Text{Text: r.Text})
				texts = append(texts, r.Text)
			} else if r != nil {
				content = append(content, tools.Text{Text: fmt.Sprintf("[resource %s, %d bytes, not shown]", r.URI, len(r.Blob))})
			}
		}
	}
	if res.IsError {
		msg := strings.Join(texts, "\n")
		if msg == "" {
			msg = "the upstream tool reported an error"
		}
		return nil, &errs.Error{Code: errs.CodeToolError, Message: msg}
	}
	out := &tools.Result{Content: content}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, &errs.Error{Code: errs.CodeToolError, Message: "upstream structured content is not JSON: " + err.Error()}
		}
		out.Value = b
	}
	return out, nil
}
