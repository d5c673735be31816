// Package policy decides what calls may do: the operator's rules, run in
// the registry's pre-execute step for every call, direct or nested; call
// budgets; and the approval of an "ask" by the person behind the session,
// through MCP elicitation.
//
// # Rules
//
// A [Spec] is an ordered list of [Rule]s; the first whose conditions all
// hold decides the call, and Spec.Default ("allow" unless set) decides a
// call no rule matches. A rule matches on the server (a glob over the
// server part of mcp__<server>__<tool>), the tool name (a glob), the tool's
// MCP annotations (hints from its server, with MCP's defaults for hints it
// leaves out — not proof of anything) and the caller ("model" for a direct
// call, "program" for a nested one: a call with a parent token). Its action
// is allow, deny (DENIED, with the rule's reason) or ask.
//
// A rule may bound the calls it lets through, per code_run program
// (MaxCallsPerRun: the nested calls of one parent execution) and per
// session (MaxCallsPerSession: per agent); a call over either is DENIED,
// naming the budget. A denied call does not spend a budget.
//
// # Asking
//
// An ask goes to the registry's approver, which is the [Policy] itself. It
// finds the call's session through its agent (the MCP front attaches each
// session's agent with [Policy.Attach]) and asks the client, in form mode,
// with one required field, decision: "allow-once", "allow-session" (the
// tool is allowed for the rest of the session, without asking) or "deny".
// A client without the elicitation capability, a decline, a cancel, a
// "deny", an error and a wait longer than ApprovalTimeout all end in
// DENIED, naming the rule. While the person is asked, the program's clock
// is held (runtime.HoldDeadline): the wait counts against ApprovalTimeout,
// not against the program's timeout.
//
// What the policy decided is written into the call's audit note (package
// internal/audit) when a trail is on.
package policy

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/tools"
)

// Options configures a [Policy].
type Options struct {
	Spec Spec
	// ApprovalTimeout bounds how long an ask waits for a person. If zero,
	// 2 minutes.
	ApprovalTimeout time.Duration
	// Redact hides argument values in the approval prompt. If nil,
	// redact.Default().
	Redact *redact.Rules
	// MaxShownArgumentBytes cuts the arguments shown in the prompt. If
	// zero, 4 KiB.
	MaxShownArgumentBytes int
	// Logger receives approval failures at Warn. If nil, nothing is
	// logged.
	Logger *slog.Logger
}

// DefaultApprovalTimeout is Options.ApprovalTimeout when unset.
const DefaultApprovalTimeout = 2 * time.Minute

// Policy is a compiled Spec, installed on one registry. It is safe for
// concurrent use.
type Policy struct {
	opts    Options
	log     *slog.Logger
	rules   []rule
	def     string
	runCaps bool // some rule has MaxCallsPerRun
	reg     *tools.Registry

	cacheMu sync.Mutex
	cache   atomic.Pointer[matchCache]

	runs     sync.Map     // tools.Token (the parent execution) → []atomic.Int64, per rule
	nRuns    atomic.Int64 // entries in runs (so that most calls skip the map)
	sessions sync.Map     // *tools.Agent → *sessionState
	global   sessionState
}

// New compiles opts.Spec. The error lists every problem [Check] finds.
func New(opts Options) (*Policy, error) {
	if issues := Check(opts.Spec); len(issues) > 0 {
		msgs := make([]string, len(issues))
		for i, is := range issues {
			msgs[i] = is.Path + ": " + is.Message
		}
		return nil, fmt.Errorf("policy: %s", strings.Join(msgs, "; "))
	}
	if opts.ApprovalTimeout == 0 {
		opts.ApprovalTimeout = DefaultApprovalTimeout
	}
	if opts.Redact == nil {
		opts.Redact = redact.Default()
	}
	if opts.MaxShownArgumentBytes == 0 {
		opts.MaxShownArgumentBytes = 4 << 10
	}
	p := &Policy{opts: opts, log: opts.Logger, def: opts.Spec.Default}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.def == "" {
		p.def = ActionAllow
	}
	for i, r := range opts.Spec.Rules {
		p.rules = append(p.rules, rule{Rule: r, name: fmt.Sprintf("rules[%d]", i),
			server: compileGlob(r.Server), tool: compileGlob(r.Tool), hasServer: r.Server != ""})
		p.runCaps = p.runCaps || r.MaxCallsPerRun > 0
	}
	p.global.counts = make([]atomic.Int64, len(p.rules))
	return p, nil
}

// Install adds the policy to reg's pre-execute step (and, when a rule has
// a per-run budget, a middleware that forgets a run's counts when it
// ends). The registry's approver must be the Policy for asks to reach a
// person (tools.Options.Approver). remove takes it out again.
func (p *Policy) Install(reg *tools.Registry) (remove func()) {
	p.reg = reg
	rmPre := reg.OnPreExecute(p.preExecute)
	rmMW := func() {}
	if p.runCaps {
		rmMW = reg.Use(func(next tools.Executor) tools.Executor {
			return func(ctx context.Context, e *tools.Execution) *tools.Result {
				res := next(ctx, e)
				if p.nRuns.Load() > 0 {
					if _, ok := p.runs.LoadAndDelete(e.Token()); ok {
						p.nRuns.Add(-1)
					}
				}
				return res
			}
		})
	}
	return func() { rmPre(); rmMW() }
}

// matchCache remembers which rule decides a tool's calls, per caller, for
// one generation of the registry's tool set (a tool's annotations can
// change with it). It is copied on write: a miss (once per tool and
// generation) copies the map, and a hit is a plain map lookup.
type matchCache struct {
	gen            uint64
	model, program map[string]int // rule index, -1 for the default
}

// decide returns the index of the rule that decides e, -1 for the
// default.
func (p *Policy) decide(e *tools.Execution, program bool) int {
	if len(p.rules) == 0 {
		return -1
	}
	if p.reg == nil {
		return p.first(e.Name(), e.Tool().Annotations, true, program)
	}
	gen := p.reg.Generation()
	c := p.cache.Load()
	if c != nil && c.gen == gen {
		m := c.model
		if program {
			m = c.program
		}
		if i, ok := m[e.Name()]; ok {
			return i
		}
	}
	i := p.first(e.Name(), e.Tool().Annotations, true, program)
	p.cacheMu.Lock()
	defer p.cacheMu.Unlock()
	old := p.cache.Load()
	next := &matchCache{gen: gen, model: map[string]int{}, program: map[string]int{}}
	if old != nil && old.gen == gen {
		next.model, next.program = maps.Clone(old.model), maps.Clone(old.program)
	}
	if program {
		next.program[e.Name()] = i
	} else {
		next.model[e.Name()] = i
	}
	if len(next.model)+len(next.program) <= maxCached {
		p.cache.Store(next)
	}
	return i
}

// maxCached bounds the cache: names come from calls, and a call may name
// anything (an unknown name is refused before the policy, but a registry
// can hold many tools).
const maxCached = 4096

func (p *Policy) first(name string, a *tools.Annotations, known, program bool) int {
	for i := range p.rules {
		if ok, _ := p.rules[i].why(name, a, known, program); ok {
			return i
		}
	}
	return -1
}

// verdict is the action, reason and name of the rule i (-1: the default).
func (p *Policy) verdict(i int) (action, reason, name string) {
	if i < 0 {
		return p.def, "", "default"
	}
	r := &p.rules[i]
	return r.Action, r.Reason, r.name
}

func (p *Policy) preExecute(ctx context.Context, e *tools.Execution, next func() tools.Decision) tools.Decision {
	program := !e.Parent().IsZero()
	i := p.decide(e, program)
	action, reason, name := p.verdict(i)
	note := e.Note()
	note.Rule, note.Action, note.Reason = name, action, reason
	if action == ActionDeny {
		return tools.Deny{Reason: p.denial(e.Name(), i), Info: map[string]any{"rule": name}}
	}
	if i >= 0 {
		if msg := p.spend(e, i, program); msg != "" {
			note.Reason = msg
			return tools.Deny{Reason: msg, Info: map[string]any{"rule": name}}
		}
	}
	d := next()
	if action == ActionAsk {
		switch d.(type) {
		case tools.Deny, tools.Cancel:
			return d
		}
		return tools.Ask{Reason: reason}
	}
	return d
}

// denial is the message of a call a rule (or the default) denies.
func (p *Policy) denial(tool string, i int) string {
	if i < 0 {
		return fmt.Sprintf("the policy denies %s: no rule allows it, and the default is deny", tool)
	}
	r := &p.rules[i]
	msg := fmt.Sprintf("the policy denies %s (%s)", tool, r.name)
	if r.Reason != "" {
		msg += ": " + r.Reason
	}
	return msg
}

// spend counts a call against rule i's budgets; it returns why the call
// is over one, or "".
func (p *Policy) spend(e *tools.Execution, i int, program bool) string {
	r := &p.rules[i]
	if r.MaxCallsPerRun == 0 && r.MaxCallsPerSession == 0 {
		return ""
	}
	var run *atomic.Int64
	if r.MaxCallsPerRun > 0 && program {
		v, ok := p.runs.Load(e.Parent())
		if !ok {
			var loaded bool
			if v, loaded = p.runs.LoadOrStore(e.Parent(), make([]atomic.Int64, len(p.rules))); !loaded {
				p.nRuns.Add(1)
			}
		}
		run = &v.([]atomic.Int64)[i]
		if n := run.Add(1); n > int64(r.MaxCallsPerRun) {
			run.Add(-1)
			return p.overBudget(e.Name(), r, fmt.Sprintf("maxCallsPerRun: %d calls per program", r.MaxCallsPerRun))
		}
	}
	if r.MaxCallsPerSession > 0 {
		s := &p.state(e.Agent()).counts[i]
		if n := s.Add(1); n > int64(r.MaxCallsPerSession) {
			s.Add(-1)
			if run != nil {
				run.Add(-1)
			}
			return p.overBudget(e.Name(), r, fmt.Sprintf("maxCallsPerSession: %d calls per session", r.MaxCallsPerSession))
		}
	}
	return ""
}

func (p *Policy) overBudget(tool string, r *rule, budget string) string {
	msg := fmt.Sprintf("the policy denies %s: %s's budget is spent (%s)", tool, r.name, budget)
	if r.Reason != "" {
		msg += "; " + r.Reason
	}
	return msg
}

// sessionState is what the policy keeps per session (per agent): the
// client to ask, the tools allowed for the session, and budget counts.
type sessionState struct {
	session Session // nil: nobody to ask
	counts  []atomic.Int64

	mu      sync.Mutex
	allowed map[string]bool
}

func (s *sessionState) isAllowed(tool string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.allowed[tool]
}

func (s *sessionState) allow(tool string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.allowed == nil {
		s.allowed = map[string]bool{}
	}
	s.allowed[tool] = true
}

// state returns the agent's state, creating it (and its release with the
// agent's scope) on first use; a call without an agent shares one state.
func (p *Policy) state(a *tools.Agent) *sessionState {
	if a == nil {
		return &p.global
	}
	if v, ok := p.sessions.Load(a); ok {
		return v.(*sessionState)
	}
	return p.attach(a, nil)
}

func (p *Policy) attach(a *tools.Agent, s Session) *sessionState {
	st := &sessionState{session: s, counts: make([]atomic.Int64, len(p.rules))}
	if v, loaded := p.sessions.LoadOrStore(a, st); loaded {
		old := v.(*sessionState)
		if s == nil || old.session != nil {
			return old
		}
		// Attached after a call made the state: keep its counts.
		st.counts = old.counts
		p.sessions.Store(a, st)
	}
	// What is remembered for a session is forgotten when it ends.
	a.Scope().Effect(func() { p.sessions.Delete(a) })
	return st
}

// Attach makes s the session of agent a: its asks go to s's client, and
// what it allows for the session is remembered until a's scope is disposed
// (the session ended). The MCP front calls it once per session.
func (p *Policy) Attach(a *tools.Agent, s Session) { p.attach(a, s) }

// SessionOf names a's session and client for the audit trail ("" when a
// has none attached).
func (p *Policy) SessionOf(a *tools.Agent) (session, client string) {
	if v, ok := p.sessions.Load(a); ok {
		if s := v.(*sessionState).session; s != nil {
			return s.ID(), s.ClientName()
		}
	}
	return "", ""
}
