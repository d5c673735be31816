package policy

import (
	"fmt"
	"path"
	"strings"

	"github.com/codemode/codemode/tools"
)

// Actions and callers, as the configuration spells them.
const (
	ActionAllow = "allow"
	ActionDeny  = "deny"
	ActionAsk   = "ask"

	CallerModel   = "model"   // a direct call: the model called the tool itself
	CallerProgram = "program" // a nested call, made by a code_run program
)

// Spec is the "policy" object of the configuration: an ordered list of
// rules, the first that matches a call deciding it, and the action for a
// call no rule matches.
type Spec struct {
	// Default is the action when no rule matches. If "", "allow".
	Default string
	Rules   []Rule
}

// Rule is one rule. Every condition that is set must hold for the rule to
// match; a rule with none matches every call.
type Rule struct {
	// Server is a glob over the server part of an upstream tool's name
	// (mcp__<server>__<tool>). A rule with a server matches only upstream
	// tools.
	Server string
	// Tool is a glob over the whole tool name ("mcp__github__delete_*"),
	// in path.Match syntax: * ? [class].
	Tool string
	// Annotations match the tool's MCP hints, with MCP's defaults for a
	// hint the tool does not declare (see tools.Annotations).
	Annotations Annotations
	// Caller is "model" (direct calls), "program" (nested calls) or ""
	// (both).
	Caller string
	// Action is "allow", "deny" or "ask".
	Action string
	// Reason is shown to the model when the rule denies, and to the person
	// asked.
	Reason string
	// MaxCallsPerRun bounds the calls this rule lets through per code_run
	// program (its nested calls); 0 means no bound.
	MaxCallsPerRun int
	// MaxCallsPerSession bounds them per session (per agent); 0 means no
	// bound.
	MaxCallsPerSession int
}

// Annotations are a rule's conditions on a tool's hints; a nil field is
// no condition.
type Annotations struct {
	ReadOnlyHint    *bool
	DestructiveHint *bool
	IdempotentHint  *bool
	OpenWorldHint   *bool
}

func (a Annotations) empty() bool {
	return a.ReadOnlyHint == nil && a.DestructiveHint == nil && a.IdempotentHint == nil && a.OpenWorldHint == nil
}

// Issue is one problem of a Spec: a key path relative to the policy
// object ("rules[2].tool") and a message.
type Issue struct{ Path, Message string }

// Check returns the problems of s: unknown actions and callers, bad globs,
// negative budgets.
func Check(s Spec) []Issue {
	var out []Issue
	add := func(p, format string, args ...any) {
		out = append(out, Issue{p, fmt.Sprintf(format, args...)})
	}
	if s.Default != "" && !validAction(s.Default) {
		add("default", "%q is not an action (want \"allow\", \"deny\" or \"ask\")", s.Default)
	}
	for i, r := range s.Rules {
		at := fmt.Sprintf("rules[%d]", i)
		switch {
		case r.Action == "":
			add(at, "a rule needs an action (\"allow\", \"deny\" or \"ask\")")
		case !validAction(r.Action):
			add(at+".action", "%q is not an action (want \"allow\", \"deny\" or \"ask\")", r.Action)
		}
		if r.Caller != "" && r.Caller != CallerModel && r.Caller != CallerProgram {
			add(at+".caller", "%q is not a caller (want \"model\" for direct calls or \"program\" for nested calls)", r.Caller)
		}
		for _, g := range []struct{ key, glob string }{{"server", r.Server}, {"tool", r.Tool}} {
			if _, err := path.Match(g.glob, ""); err != nil {
				add(at+"."+g.key, "%q is not a glob (path.Match syntax: * ? [class], with \\ to escape)", g.glob)
			}
		}
		if r.MaxCallsPerRun < 0 {
			add(at+".maxCallsPerRun", "must not be negative")
		}
		if r.MaxCallsPerSession < 0 {
			add(at+".maxCallsPerSession", "must not be negative")
		}
	}
	return out
}

func validAction(a string) bool { return a == ActionAllow || a == ActionDeny || a == ActionAsk }

// glob is a compiled glob: most are a literal or a prefix followed by *,
// which match without path.Match.
type glob struct {
	pattern string
	kind    uint8 // globAny, globExact, globPrefix, globMatch
	prefix  string
}

const (
	globAny = iota
	globExact
	globPrefix
	globMatch
)

func compileGlob(p string) glob {
	switch {
	case p == "" || p == "*":
		return glob{pattern: p, kind: globAny}
	case !strings.ContainsAny(p, `*?[\`):
		return glob{pattern: p, kind: globExact}
	case strings.HasSuffix(p, "*") && !strings.ContainsAny(p[:len(p)-1], `*?[\`):
		return glob{pattern: p, kind: globPrefix, prefix: p[:len(p)-1]}
	}
	return glob{pattern: p, kind: globMatch}
}

func (g glob) match(s string) bool {
	switch g.kind {
	case globAny:
		return true
	case globExact:
		return s == g.pattern
	case globPrefix:
		return strings.HasPrefix(s, g.prefix)
	}
	ok, _ := path.Match(g.pattern, s)
	return ok
}

// rule is a compiled Rule.
type rule struct {
	Rule
	name         string // "rules[2]"
	server, tool glob
	hasServer    bool
}

// ServerOf returns the server of an upstream tool's name
// (mcp__<server>__<tool>), or "" for any other name. Server names cannot
// contain "__", so the first "__" after the prefix ends it.
func ServerOf(name string) string {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return ""
	}
	server, _, ok := strings.Cut(rest, "__")
	if !ok {
		return ""
	}
	return server
}

// why reports whether r matches the tool for caller, and if not, the
// first condition that fails.
func (r *rule) why(name string, a *tools.Annotations, known bool, program bool) (bool, string) {
	if r.hasServer {
		s := ServerOf(name)
		if s == "" {
			return false, "not an upstream tool, and the rule names a server"
		}
		if !r.server.match(s) {
			return false, fmt.Sprintf("server %q does not match %q", s, r.Server)
		}
	}
	if !r.tool.match(name) {
		return false, fmt.Sprintf("name does not match %q", r.Tool)
	}
	switch {
	case r.Caller == CallerModel && program:
		return false, "the rule is for direct calls (caller \"model\")"
	case r.Caller == CallerProgram && !program:
		return false, "the rule is for nested calls (caller \"program\")"
	}
	if !r.Annotations.empty() {
		if !known {
			return false, "the tool is not registered, so its annotations are unknown"
		}
		for _, h := range []struct {
			key  string
			want *bool
			got  bool
		}{
			{"readOnlyHint", r.Annotations.ReadOnlyHint, a.IsReadOnly()},
			{"destructiveHint", r.Annotations.DestructiveHint, a.IsDestructive()},
			{"idempotentHint", r.Annotations.IdempotentHint, a.IsIdempotent()},
			{"openWorldHint", r.Annotations.OpenWorldHint, a.IsOpenWorld()},
		} {
			if h.want != nil && *h.want != h.got {
				return false, fmt.Sprintf("%s is %v, the rule wants %v", h.key, h.got, *h.want)
			}
		}
	}
	return true, ""
}
