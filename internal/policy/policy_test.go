package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

func ptr[T any](v T) *T { return &v }

// Tools with known hints: a read-only one, a destructive one, one without
// annotations (MCP's defaults: destructive, open world), and one of ours.
var (
	readOnly    = tools.Info{Name: "mcp__fs__read_file", Annotations: &tools.Annotations{ReadOnlyHint: ptr(true)}}
	destructive = tools.Info{Name: "mcp__memory__delete_entities", Annotations: &tools.Annotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}}
	additive    = tools.Info{Name: "mcp__memory__create_entities", Annotations: &tools.Annotations{DestructiveHint: ptr(false), IdempotentHint: ptr(true), OpenWorldHint: ptr(false)}}
	bare        = tools.Info{Name: "mcp__github__delete_repo"}
	ours        = tools.Info{Name: "code_tools_search"}
)

// TestMatching: the first matching rule decides, on server and tool globs,
// annotations (with MCP's defaults) and caller; the default closes the
// list.
func TestMatching(t *testing.T) {
	tests := []struct {
		name       string
		spec       policy.Spec
		tool       tools.Info
		unknown    bool
		caller     string
		wantRule   string
		wantAction string
	}{
		{name: "no rules: allow", tool: bare, wantRule: "default", wantAction: "allow"},
		{name: "default deny", spec: policy.Spec{Default: "deny"}, tool: bare, wantRule: "default", wantAction: "deny"},
		{name: "tool glob prefix", spec: policy.Spec{Rules: []policy.Rule{{Tool: "mcp__github__delete_*", Action: "deny"}}}, tool: bare, wantRule: "rules[0]", wantAction: "deny"},
		{name: "tool glob misses", spec: policy.Spec{Rules: []policy.Rule{{Tool: "mcp__github__create_*", Action: "deny"}}}, tool: bare, wantRule: "default", wantAction: "allow"},
		{name: "tool glob in the middle", spec: policy.Spec{Rules: []policy.Rule{{Tool: "mcp__*__delete_*", Action: "ask"}}}, tool: destructive, wantRule: "rules[0]", wantAction: "ask"},
		{name: "tool glob class", spec: policy.Spec{Rules: []policy.Rule{{Tool: "mcp__[fg]*", Action: "deny"}}}, tool: readOnly, wantRule: "rules[0]", wantAction: "deny"},
		{name: "exact tool", spec: policy.Spec{Rules: []policy.Rule{{Tool: "mcp__fs__read_file", Action: "deny"}}}, tool: readOnly, wantRule: "rules[0]", wantAction: "deny"},
		{name: "server", spec: policy.Spec{Rules: []policy.Rule{{Server: "memory", Action: "deny"}}}, tool: additive, wantRule: "rules[0]", wantAction: "deny"},
		{name: "server glob", spec: policy.Spec{Rules: []policy.Rule{{Server: "mem*", Action: "deny"}}}, tool: destructive, wantRule: "rules[0]", wantAction: "deny"},
		{name: "server misses", spec: policy.Spec{Rules: []policy.Rule{{Server: "memory", Action: "deny"}}}, tool: readOnly, wantRule: "default", wantAction: "allow"},
		{name: "server never matches our own tools", spec: policy.Spec{Rules: []policy.Rule{{Server: "*", Action: "deny"}}}, tool: ours, wantRule: "default", wantAction: "allow"},
		{name: "destructive hint", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{DestructiveHint: ptr(true)}, Action: "deny"}}}, tool: destructive, wantRule: "rules[0]", wantAction: "deny"},
		{name: "destructive hint false", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{DestructiveHint: ptr(true)}, Action: "deny"}}}, tool: additive, wantRule: "default", wantAction: "allow"},
		{name: "destructive by MCP's default", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{DestructiveHint: ptr(true)}, Action: "ask"}}}, tool: bare, wantRule: "rules[0]", wantAction: "ask"},
		{name: "read-only is never destructive", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{DestructiveHint: ptr(true)}, Action: "deny"}}}, tool: readOnly, wantRule: "default", wantAction: "allow"},
		{name: "read-only hint", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{ReadOnlyHint: ptr(false)}, Action: "deny"}}}, tool: readOnly, wantRule: "default", wantAction: "allow"},
		{name: "not read-only", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{ReadOnlyHint: ptr(false)}, Action: "deny"}}}, tool: bare, wantRule: "rules[0]", wantAction: "deny"},
		{name: "idempotent", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{IdempotentHint: ptr(true)}, Action: "allow"}}, Default: "deny"}, tool: additive, wantRule: "rules[0]", wantAction: "allow"},
		{name: "open world by default", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{OpenWorldHint: ptr(true)}, Action: "ask"}}}, tool: bare, wantRule: "rules[0]", wantAction: "ask"},
		{name: "closed world", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{OpenWorldHint: ptr(true)}, Action: "ask"}}}, tool: destructive, wantRule: "default", wantAction: "allow"},
		{name: "all hints must hold", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)}, Action: "deny"}}}, tool: destructive, wantRule: "default", wantAction: "allow"},
		{name: "annotations of an unknown tool never match", spec: policy.Spec{Rules: []policy.Rule{{Annotations: policy.Annotations{DestructiveHint: ptr(true)}, Action: "deny"}}}, tool: bare, unknown: true, wantRule: "default", wantAction: "allow"},
		{name: "caller program matches nested", spec: policy.Spec{Rules: []policy.Rule{{Caller: "program", Action: "deny"}}}, tool: bare, caller: "program", wantRule: "rules[0]", wantAction: "deny"},
		{name: "caller program skips direct", spec: policy.Spec{Rules: []policy.Rule{{Caller: "program", Action: "deny"}}}, tool: bare, caller: "model", wantRule: "default", wantAction: "allow"},
		{name: "caller model skips nested", spec: policy.Spec{Rules: []policy.Rule{{Caller: "model", Action: "deny"}}}, tool: bare, caller: "program", wantRule: "default", wantAction: "allow"},
		{name: "first match wins", spec: policy.Spec{Rules: []policy.Rule{
			{Tool: "mcp__fs__*", Action: "ask"}, {Tool: "mcp__*", Action: "deny"}, {Action: "allow"}}}, tool: readOnly, wantRule: "rules[0]", wantAction: "ask"},
		{name: "first match wins, later rule", spec: policy.Spec{Rules: []policy.Rule{
			{Tool: "mcp__fs__*", Action: "ask"}, {Tool: "mcp__*", Action: "deny"}, {Action: "allow"}}}, tool: bare, wantRule: "rules[1]", wantAction: "deny"},
		{name: "a rule with no conditions matches all", spec: policy.Spec{Default: "deny", Rules: []policy.Rule{{Tool: "x", Action: "deny"}, {Action: "allow"}}}, tool: ours, wantRule: "rules[1]", wantAction: "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := policy.New(policy.Options{Spec: tt.spec})
			if err != nil {
				t.Fatal(err)
			}
			x := p.Explain(tt.tool, !tt.unknown, tt.caller)
			if x.Rule != tt.wantRule || x.Action != tt.wantAction {
				t.Errorf("got %s by %s, want %s by %s\n%s", x.Action, x.Rule, tt.wantAction, tt.wantRule, x)
			}
		})
	}
}

// TestCheck: bad globs, actions and callers are refused with their path.
func TestCheck(t *testing.T) {
	issues := policy.Check(policy.Spec{Default: "maybe", Rules: []policy.Rule{
		{Tool: "a[", Action: "deny"}, {Action: "sometimes"}, {Caller: "user", Action: "allow"}, {Server: "x"}}})
	want := []string{"default", "rules[0].tool", "rules[1].action", "rules[2].caller", "rules[3]"}
	var got []string
	for _, is := range issues {
		got = append(got, is.Path)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("issues at %q, want %q (%+v)", got, want, issues)
	}
	if _, err := policy.New(policy.Options{Spec: policy.Spec{Rules: []policy.Rule{{Tool: "[", Action: "deny"}}}}); err == nil || !strings.Contains(err.Error(), "rules[0].tool") {
		t.Errorf("New with a bad glob: got %v, want an error naming rules[0].tool", err)
	}
}

// host is a registry with the policy installed and approving, tools
// registered from infos, and an agent.
type host struct {
	t     *testing.T
	reg   *tools.Registry
	p     *policy.Policy
	agent *tools.Agent
	notes []tools.Note
	mu    sync.Mutex
}

func newHost(t *testing.T, opts policy.Options, infos ...tools.Info) *host {
	t.Helper()
	p, err := policy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h := &host{t: t, p: p, reg: tools.New(tools.Options{Approver: p})}
	// A stand-in for the audit trail: it keeps each call's note.
	h.reg.Use(func(next tools.Executor) tools.Executor {
		return func(ctx context.Context, e *tools.Execution) *tools.Result {
			res := next(ctx, e)
			h.mu.Lock()
			h.notes = append(h.notes, *e.Note())
			h.mu.Unlock()
			return res
		}
	})
	p.Install(h.reg)
	for _, in := range infos {
		if _, err := h.reg.Register(tools.GlobalLayer(), tools.Tool{Name: in.Name, Annotations: in.Annotations, Handler: func(context.Context, *tools.Execution) (*tools.Result, error) {
			return tools.TextResult("ok"), nil
		}}); err != nil {
			t.Fatal(err)
		}
	}
	// "run" plays code_run: its arguments list the nested calls to make.
	if _, err := h.reg.Register(tools.GlobalLayer(), tools.Tool{Name: "run", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		var calls []string
		var args struct{ Calls []string }
		_ = json.Unmarshal(e.Arguments(), &args)
		for i, name := range args.Calls {
			res := h.reg.Execute(ctx, tools.Input{CallID: fmt.Sprintf("%s:ptc:%d", e.CallID(), i+1), Name: name, Agent: e.Agent(), Parent: e.Token()})
			calls = append(calls, codeOf(res))
		}
		return tools.ValueResult(calls)
	}}); err != nil {
		t.Fatal(err)
	}
	presetScope := scope.NewHost("host").Child(scope.KindPreset, "p")
	t.Cleanup(func() { _ = presetScope.Dispose() })
	h.agent, err = h.reg.NewAgent(presetScope, "agent-1")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func codeOf(res *tools.Result) string {
	if res.Err != nil {
		return string(res.Err.Code)
	}
	return "OK"
}

// direct calls name as the model would.
func (h *host) direct(name string) *tools.Result {
	return h.reg.Execute(context.Background(), tools.Input{CallID: "c", Name: name, Agent: h.agent})
}

// program makes the nested calls names in one run and returns their codes.
func (h *host) program(names ...string) []string {
	h.t.Helper()
	res := h.reg.Execute(context.Background(), tools.Input{CallID: "r", Name: "run", Arguments: map[string]any{"calls": toAny(names)}, Agent: h.agent})
	if res.IsError {
		h.t.Fatalf("run: %s", res.TextOf())
	}
	var codes []string
	_ = json.Unmarshal(res.Value, &codes)
	return codes
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// TestDecisions: the rules run for direct and nested calls alike, a
// denial is DENIED with the rule's reason, and the audit note says which
// rule decided.
func TestDecisions(t *testing.T) {
	h := newHost(t, policy.Options{Spec: policy.Spec{Rules: []policy.Rule{
		{Server: "memory", Annotations: policy.Annotations{DestructiveHint: ptr(true)}, Action: "deny", Reason: "no deletes"},
		{Tool: "mcp__github__*", Caller: "program", Action: "deny", Reason: "programs leave github alone"},
	}}}, destructive, additive, bare)
	res := h.direct(destructive.Name)
	if res.Err == nil || res.Err.Code != errs.CodeDenied || !strings.Contains(res.Err.Message, "no deletes") || !strings.Contains(res.Err.Message, "rules[0]") {
		t.Errorf("direct destructive call: got %v, want DENIED naming rules[0] and its reason", res.Err)
	}
	if got := h.program(destructive.Name, additive.Name, bare.Name); strings.Join(got, " ") != "DENIED OK DENIED" {
		t.Errorf("nested calls: got %v, want [DENIED OK DENIED]", got)
	}
	if res := h.direct(bare.Name); res.IsError {
		t.Errorf("direct github call: got %v, want allowed (the rule is for programs)", res.Err)
	}
	n := h.notes[0]
	if n.Rule != "rules[0]" || n.Action != "deny" || n.Reason != "no deletes" {
		t.Errorf("audit note of the first call: %+v, want rules[0], deny, no deletes", n)
	}
}

// TestBudgets: maxCallsPerRun counts per program and starts afresh in the
// next; maxCallsPerSession counts across programs and direct calls of one
// session; an exceeded budget is DENIED naming it; a denied call does not
// spend it.
func TestBudgets(t *testing.T) {
	h := newHost(t, policy.Options{Spec: policy.Spec{Rules: []policy.Rule{
		{Tool: "mcp__fs__*", Action: "allow", MaxCallsPerRun: 2},
		{Tool: "mcp__memory__*", Action: "allow", MaxCallsPerSession: 3, Reason: "memory is precious"},
	}}}, readOnly, additive)
	for run := 0; run < 2; run++ {
		if got := h.program(readOnly.Name, readOnly.Name, readOnly.Name); strings.Join(got, " ") != "OK OK DENIED" {
			t.Errorf("run %d: got %v, want [OK OK DENIED]", run, got)
		}
	}
	if res := h.direct(readOnly.Name); res.IsError {
		t.Errorf("a direct call is a run of its own: got %v", res.Err)
	}
	if got := h.program(additive.Name, additive.Name); strings.Join(got, " ") != "OK OK" {
		t.Errorf("session budget, first run: got %v", got)
	}
	if res := h.direct(additive.Name); res.IsError {
		t.Errorf("session budget, third call: got %v", res.Err)
	}
	res := h.direct(additive.Name)
	if res.Err == nil || res.Err.Code != errs.CodeDenied || !strings.Contains(res.Err.Message, "maxCallsPerSession") || !strings.Contains(res.Err.Message, "memory is precious") {
		t.Errorf("session budget, fourth call: got %v, want DENIED naming maxCallsPerSession and the reason", res.Err)
	}
	// The per-run denial names its budget.
	h.program(readOnly.Name, readOnly.Name, readOnly.Name)
	last := h.notes[len(h.notes)-2] // the third nested call; the run's own note is last
	if last.Action != "allow" || !strings.Contains(last.Reason, "maxCallsPerRun") {
		t.Errorf("note of the call over the run budget: %+v, want its reason to name maxCallsPerRun", last)
	}
}

// fakeSession answers elicitations with a scripted result.
type fakeSession struct {
	canElicit bool
	answer    func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	mu        sync.Mutex
	asked     []*mcp.ElicitParams
}

func (f *fakeSession) ID() string         { return "sess-1" }
func (f *fakeSession) ClientName() string { return "fake-client" }
func (f *fakeSession) CanElicit() bool    { return f.canElicit }
func (f *fakeSession) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	f.mu.Lock()
	f.asked = append(f.asked, p)
	f.mu.Unlock()
	return f.answer(ctx, p)
}

func decide(d string) func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": d}}, nil
	}
}

func action(a string) func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: a}, nil
	}
}

// TestAsk: an ask reaches the session's client with the form and a message
// naming the server, the tool, the reason and the (redacted) arguments;
// each way of not getting a yes is DENIED naming the rule; allow-session
// is remembered for that tool only, and forgotten with the session.
func TestAsk(t *testing.T) {
	spec := policy.Spec{Rules: []policy.Rule{{Tool: "mcp__memory__*", Action: "ask", Reason: "touches memory"}}}
	tests := []struct {
		name         string
		session      *fakeSession
		wantOK       bool
		wantApproval string
		wantMsg      string
	}{
		{name: "allow once", session: &fakeSession{canElicit: true, answer: decide("allow-once")}, wantOK: true, wantApproval: "allow-once"},
		{name: "deny", session: &fakeSession{canElicit: true, answer: decide("deny")}, wantApproval: "deny", wantMsg: "the user denied it"},
		{name: "decline", session: &fakeSession{canElicit: true, answer: action("decline")}, wantApproval: "declined", wantMsg: "the user declined"},
		{name: "cancel", session: &fakeSession{canElicit: true, answer: action("cancel")}, wantApproval: "cancelled", wantMsg: "dismissed"},
		{name: "no elicitation capability", session: &fakeSession{}, wantApproval: "unavailable", wantMsg: "did not declare the elicitation capability"},
		{name: "no session", wantApproval: "unavailable", wantMsg: "no client to ask"},
		{name: "timeout", session: &fakeSession{canElicit: true, answer: func(ctx context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}}, wantApproval: "timeout", wantMsg: "within the approval timeout (50ms)"},
		{name: "unknown decision", session: &fakeSession{canElicit: true, answer: decide("maybe")}, wantApproval: "error", wantMsg: `"maybe" is not one of the decisions`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHost(t, policy.Options{Spec: spec, ApprovalTimeout: 50 * time.Millisecond}, additive)
			if tt.session != nil {
				h.p.Attach(h.agent, tt.session)
			}
			res := h.reg.Execute(context.Background(), tools.Input{CallID: "c", Name: additive.Name, Agent: h.agent,
				Arguments: map[string]any{"name": "x", "apiKey": "sk-very-secret"}})
			if ok := !res.IsError; ok != tt.wantOK {
				t.Fatalf("got ok %v (%v), want %v", ok, res.Err, tt.wantOK)
			}
			if !tt.wantOK {
				if res.Err.Code != errs.CodeDenied || !strings.Contains(res.Err.Message, "rules[0]") || !strings.Contains(res.Err.Message, "touches memory") || !strings.Contains(res.Err.Message, tt.wantMsg) {
					t.Errorf("got %v, want DENIED naming rules[0], its reason and %q", res.Err, tt.wantMsg)
				}
			}
			if n := h.notes[0]; n.Approval != tt.wantApproval || n.Action != "ask" || n.Rule != "rules[0]" {
				t.Errorf("note %+v, want approval %q for rules[0]'s ask", n, tt.wantApproval)
			}
			if s := tt.session; s != nil && s.canElicit {
				p := s.asked[0]
				for _, want := range []string{"Server: memory", "Tool: create_entities (mcp__memory__create_entities)", "touches memory (rules[0])", `"name": "x"`, `"apiKey": "[REDACTED]"`} {
					if !strings.Contains(p.Message, want) {
						t.Errorf("prompt %q lacks %q", p.Message, want)
					}
				}
				if strings.Contains(p.Message, "sk-very-secret") {
					t.Errorf("prompt shows a redacted value: %q", p.Message)
				}
				if p.Mode != "form" || !strings.Contains(string(p.RequestedSchema.(json.RawMessage)), `"required":["decision"]`) {
					t.Errorf("elicitation mode %q schema %v, want the form with its required decision", p.Mode, p.RequestedSchema)
				}
			}
		})
	}
}

func TestAllowSession(t *testing.T) {
	spec := policy.Spec{Rules: []policy.Rule{{Tool: "mcp__*", Action: "ask", Reason: "asks"}}}
	h := newHost(t, policy.Options{Spec: spec}, additive, destructive)
	s := &fakeSession{canElicit: true, answer: decide("allow-session")}
	h.p.Attach(h.agent, s)
	if got := h.program(additive.Name, additive.Name); strings.Join(got, " ") != "OK OK" {
		t.Fatalf("got %v, want [OK OK]", got)
	}
	if len(s.asked) != 1 {
		t.Errorf("asked %d times, want once: the second call is allowed for the session", len(s.asked))
	}
	if n := h.notes[1]; n.Approval != "remembered" {
		t.Errorf("second call's note %+v, want approval remembered", n)
	}
	// Another tool is asked again.
	h.direct(destructive.Name)
	if len(s.asked) != 2 {
		t.Errorf("asked %d times, want 2: allow-session covers one tool", len(s.asked))
	}
	// A new session (a new agent) asks again: the memory went with the old one.
	h.agent.Scope().Dispose()
	a2, err := h.reg.NewAgent(scope.NewHost("h2").Child(scope.KindPreset, "p"), "agent-1")
	if err != nil {
		t.Fatal(err)
	}
	s2 := &fakeSession{canElicit: true, answer: decide("allow-once")}
	h.p.Attach(a2, s2)
	h.reg.Execute(context.Background(), tools.Input{CallID: "c2", Name: additive.Name, Agent: a2})
	if len(s2.asked) != 1 {
		t.Errorf("the new session was asked %d times, want 1", len(s2.asked))
	}
}

// TestAskAlongsideOtherListeners: a listener after the policy that denies
// wins over the policy's ask (nobody is asked about a call that cannot run).
func TestAskAlongsideOtherListeners(t *testing.T) {
	h := newHost(t, policy.Options{Spec: policy.Spec{Default: "ask"}}, additive)
	s := &fakeSession{canElicit: true, answer: decide("allow-once")}
	h.p.Attach(h.agent, s)
	h.reg.OnPreExecute(func(ctx context.Context, e *tools.Execution, next func() tools.Decision) tools.Decision {
		return tools.Deny{Reason: "maintenance"}
	})
	res := h.direct(additive.Name)
	if res.Err == nil || res.Err.Message != "maintenance" || len(s.asked) != 0 {
		t.Errorf("got %v after %d asks, want the later listener's denial and no ask", res.Err, len(s.asked))
	}
}

func TestExplainString(t *testing.T) {
	p, err := policy.New(policy.Options{Spec: policy.Spec{Rules: []policy.Rule{
		{Tool: "mcp__fs__write_*", Action: "ask", Reason: "writes files"},
		{Server: "memory", Annotations: policy.Annotations{DestructiveHint: ptr(true)}, Action: "deny", Reason: "no deletes"},
		{Tool: "mcp__memory__*", Caller: "program", Action: "allow", MaxCallsPerRun: 5},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	got := p.Explain(additive, true, "program").String()
	want := `mcp__memory__create_entities, called by the program (a nested call)
  rules[0]: no match (name does not match "mcp__fs__write_*")
  rules[1]: no match (destructiveHint is false, the rule wants true)
  rules[2]: matches
decision: allow, by rules[2]
budgets: at most 5 per program (maxCallsPerRun)
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
