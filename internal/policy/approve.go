package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// Session is a client session as the approver sees it. [MCPSession]
// adapts the MCP front's sessions.
type Session interface {
	// ID names the session in the audit trail.
	ID() string
	// ClientName is the client's name from its initialize request.
	ClientName() string
	// CanElicit reports whether the client declared the elicitation
	// capability (form mode).
	CanElicit() bool
	// Elicit asks the client's user; it honours ctx.
	Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error)
}

// MCPSession adapts a front session. id is the session's name for the
// audit trail (the MCP session id, or the agent's id over stdio, which has
// none).
func MCPSession(ss *mcp.ServerSession, id string) Session { return mcpSession{ss, id} }

type mcpSession struct {
	ss *mcp.ServerSession
	id string
}

func (s mcpSession) ID() string { return s.id }

func (s mcpSession) ClientName() string {
	if p := s.ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		return p.ClientInfo.Name
	}
	return ""
}

func (s mcpSession) CanElicit() bool {
	p := s.ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	// Neither mode named means form, for older clients.
	el := p.Capabilities.Elicitation
	return el.Form != nil || el.URL == nil
}

func (s mcpSession) Elicit(ctx context.Context, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return s.ss.Elicit(ctx, params)
}

// The answers of the approval form: its one required field, decision.
const (
	DecisionAllowOnce    = "allow-once"
	DecisionAllowSession = "allow-session"
	DecisionDeny         = "deny"
)

// FormSchema is the approval form's requested schema.
var FormSchema = json.RawMessage(`{"type":"object","properties":{"decision":{"type":"string","title":"Decision",` +
	`"description":"allow-once: this call only; allow-session: this tool, without asking again, for the rest of the session; deny: refuse the call",` +
	`"enum":["allow-once","allow-session","deny"]}},"required":["decision"]}`)

// Approve implements tools.Approver: it asks the person behind the call's
// session, and remembers an allow-session. Every way of not getting a yes
// is a DENIED error naming the rule.
func (p *Policy) Approve(ctx context.Context, e *tools.Execution, reason string) (bool, error) {
	program := !e.Parent().IsZero()
	i := p.decide(e, program)
	_, _, name := p.verdict(i)
	note := e.Note()
	st := p.state(e.Agent())
	if st.isAllowed(e.Name()) {
		note.Approval = "remembered"
		return true, nil
	}
	refuse := func(outcome, why string) (bool, error) {
		note.Approval = outcome
		msg := fmt.Sprintf("%s needs approval (%s", e.Name(), name)
		if reason != "" {
			msg += ": " + reason
		}
		msg += "), and " + why
		return false, &errs.Error{Code: errs.CodeDenied, Message: msg, Info: map[string]any{"rule": name, "approval": outcome}}
	}
	s := st.session
	if s == nil {
		return refuse("unavailable", "this session has no client to ask")
	}
	if !s.CanElicit() {
		return refuse("unavailable", fmt.Sprintf("the client (%s) did not declare the elicitation capability, so nobody can be asked", orUnknown(s.ClientName())))
	}
	// The person's time is not the program's.
	release := runtime.HoldDeadline(ctx)
	defer release()
	actx, cancel := context.WithTimeout(ctx, p.opts.ApprovalTimeout)
	defer cancel()
	res, err := s.Elicit(actx, &mcp.ElicitParams{Mode: "form", Message: p.prompt(ctx, e, name, reason, program), RequestedSchema: FormSchema})
	switch {
	case err != nil && actx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		return refuse("timeout", fmt.Sprintf("nobody answered within the approval timeout (%s)", p.opts.ApprovalTimeout))
	case err != nil && ctx.Err() != nil:
		return refuse("cancelled", "the call was cancelled while waiting for approval")
	case err != nil:
		p.log.Warn("policy: asking for approval failed", slog.String("tool", e.Name()), slog.Any("err", err))
		return refuse("error", fmt.Sprintf("asking the client failed: %v", err))
	}
	note.AnsweredBy = s.ClientName()
	switch res.Action {
	case "decline":
		return refuse("declined", "the user declined")
	case "cancel":
		return refuse("cancelled", "the user dismissed the request")
	case "accept":
	default:
		return refuse("error", fmt.Sprintf("the client answered %q", res.Action))
	}
	d, _ := res.Content["decision"].(string)
	switch d {
	case DecisionAllowOnce:
		note.Approval = DecisionAllowOnce
		return true, nil
	case DecisionAllowSession:
		note.Approval = DecisionAllowSession
		st.allow(e.Name())
		return true, nil
	case DecisionDeny:
		return refuse(DecisionDeny, "the user denied it")
	}
	return refuse("error", fmt.Sprintf("the answer %q is not one of the decisions", d))
}

func orUnknown(s string) string {
	if s == "" {
		return "unnamed"
	}
	return s
}

// prompt is the approval form's message: who wants what, why it is asked,
// the program line, and the arguments (redacted, pretty, cut).
func (p *Policy) prompt(ctx context.Context, e *tools.Execution, rule, reason string, program bool) string {
	var b strings.Builder
	who := "The model wants"
	if program {
		who = "A code_run program wants"
	}
	fmt.Fprintf(&b, "%s to call a tool that needs your approval.\n\n", who)
	if s := ServerOf(e.Name()); s != "" {
		fmt.Fprintf(&b, "Server: %s\nTool: %s (%s)\n", s, strings.TrimPrefix(e.Name(), "mcp__"+s+"__"), e.Name())
	} else {
		fmt.Fprintf(&b, "Tool: %s\n", e.Name())
	}
	if reason != "" {
		fmt.Fprintf(&b, "Why you are asked: %s (%s)\n", reason, rule)
	} else {
		fmt.Fprintf(&b, "Why you are asked: %s asks\n", rule)
	}
	shown, hidden := p.redactArguments(e.Arguments())
	if program {
		line, text := runtime.CallSite(ctx)
		for _, v := range hidden { // the line may spell a redacted value out
			text = strings.ReplaceAll(text, v, redact.Marker)
		}
		switch {
		case line > 0 && text != "":
			fmt.Fprintf(&b, "Program line %d: %s\n", line, strings.TrimSpace(human.Cut(text, 200)))
		case line > 0:
			fmt.Fprintf(&b, "Program line %d\n", line)
		default:
			b.WriteString("Program line: unknown\n")
		}
	}
	b.WriteString("\nArguments:\n")
	b.WriteString(shown)
	return b.String()
}

// redactArguments redacts, indents and cuts the arguments for a person,
// and returns the string values it hid (at least 4 bytes long), so that
// the program line shown with them can hide them too.
func (p *Policy) redactArguments(args json.RawMessage) (shown string, hidden []string) {
	red := p.opts.Redact.Apply(args)
	var orig, after any
	if json.Unmarshal(args, &orig) == nil && json.Unmarshal(red, &after) == nil {
		hidden = replaced(orig, after, nil)
	}
	var out bytes.Buffer
	if json.Indent(&out, red, "", "  ") != nil {
		return string(red), hidden
	}
	return human.Cut(out.String(), p.opts.MaxShownArgumentBytes), hidden
}

// replaced collects the string leaves of orig where red holds the marker
// instead.
func replaced(orig, red any, out []string) []string {
	if s, ok := red.(string); ok && s == redact.Marker {
		return leaves(orig, out)
	}
	switch o := orig.(type) {
	case map[string]any:
		r, _ := red.(map[string]any)
		for k, v := range o {
			out = replaced(v, r[k], out)
		}
	case []any:
		r, _ := red.([]any)
		for i, v := range o {
			if i < len(r) {
				out = replaced(v, r[i], out)
			}
		}
	}
	return out
}

func leaves(v any, out []string) []string {
	switch x := v.(type) {
	case string:
		if len(x) >= 4 {
			out = append(out, x)
		}
	case map[string]any:
		for _, e := range x {
			out = leaves(e, out)
		}
	case []any:
		for _, e := range x {
			out = leaves(e, out)
		}
	}
	return out
}

var _ tools.Approver = (*Policy)(nil)
