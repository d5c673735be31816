package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/codemode/codemode/tools"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// envelopeBytes is what a tools/call request adds to its arguments, beyond
// the tool name and the provenance ids: {"jsonrpc":"2.0","id":N,
// "method":"tools/call","params":{"_meta":{…},"name":…,"arguments":…}}
// and the SDK's own _meta, with room to spare.
const envelopeBytes = 512

// call forwards one execution to the upstream tool name.
func (s *server) call(ctx context.Context, e *tools.Execution, name string) (*tools.Result, error) {
	args := e.Arguments()
	meta := mcp.Meta{MetaCallID: e.CallID(), MetaRootCallID: e.RootCallID()}
	if p := e.ParentCallID(); p != "" {
		meta[MetaParentCallID] = p
	}
	// A request over the server's frame limit would be refused by the
	// server's reader, which drops the connection: refuse it here.
	if n, limit := len(args)+len(name)+len(e.CallID())+len(e.RootCallID())+len(e.ParentCallID())+envelopeBytes, s.frameLimit(); n > limit {
		return nil, &tools.Error{
			Code: tools.CodeArgumentsTooLarge,
			Message: fmt.Sprintf("the arguments of %s (%d bytes of JSON) would make a request over the %d-byte message limit of upstream server %q (maxFrameBytes); nothing was sent. "+
				"Send less per call: split the data over several calls, or pass a reference (a path, a URL, an id) instead of the content", e.Name(), len(args), limit, s.name),
			Info: map[string]any{"server": s.name, "bytes": len(args), "limit": limit},
		}
	}
	s.mu.Lock()
	sess, state, lastErr := s.sess, s.state, s.lastErr
	s.mu.Unlock()
	if sess == nil {
		msg := fmt.Sprintf("upstream server %q is %s", s.name, state)
		if lastErr != "" {
			msg += " (" + lastErr + ")"
		}
		return nil, &tools.Error{Code: tools.CodeUpstreamUnavailable, Message: msg, Info: map[string]any{"server": s.name, "state": string(state)}}
	}
	if d := s.m.opts.CallTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: name, Arguments: args})
	if err != nil {
		return nil, s.callError(ctx, e, err)
	}
	return convert(res)
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
		return &tools.Error{Code: tools.CodeTimeout, Message: fmt.Sprintf("tool %s timed out waiting for upstream server %q", e.Name(), s.name), Err: err}
	case ctx.Err() != nil:
		return &tools.Error{Code: tools.CodeCancelled, Message: fmt.Sprintf("tool %s was cancelled", e.Name()), Err: err}
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		if d, ok := frameTooLarge(rpcErr); ok {
			size := "over the limit"
			if d.Bytes > 0 {
				size = fmt.Sprintf("%d bytes", d.Bytes)
			}
			return &tools.Error{
				Code: tools.CodeResultTooLarge,
				Message: fmt.Sprintf("the reply of upstream server %q to %s was %s, more than the %d bytes the server may send in one message (maxFrameBytes); it was dropped, and the server is fine. "+
					"Ask for less in one call: filter, paginate, select fewer fields or a smaller range", s.name, e.Name(), size, d.Limit),
				Info: map[string]any{"server": s.name, "limit": d.Limit, "bytes": d.Bytes},
				Err:  err,
			}
		}
		// The server is there and said no (unknown tool, invalid params…).
		return &tools.Error{Code: tools.CodeToolError, Message: fmt.Sprintf("upstream server %q: %s", s.name, rpcErr.Message), Err: err}
	}
	return &tools.Error{
		Code:    tools.CodeUpstreamUnavailable,
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
		return nil, &tools.Error{Code: tools.CodeToolError, Message: msg}
	}
	out := &tools.Result{Content: content}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, &tools.Error{Code: tools.CodeToolError, Message: "upstream structured content is not JSON: " + err.Error()}
		}
		out.Value = b
	}
	return out, nil
}
