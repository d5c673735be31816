package policy

import (
	"fmt"
	"strings"

	"github.com/codemode/codemode/tools"
)

// Explanation says which rule decides a call and why the rules before it
// do not: what `codemode policy explain` prints.
type Explanation struct {
	Tool   string
	Caller string // "model" or "program"
	// Known is false when the tool is not registered: its annotations are
	// then unknown, and rules that match on them do not match.
	Known bool
	Steps []Step
	// Rule is the deciding rule's name ("rules[2]") or "default".
	Rule   string
	Action string
	Reason string
	// Budgets describes the deciding rule's call budgets, "" when none.
	Budgets string
}

// Step is one rule considered.
type Step struct {
	Rule    string
	Matched bool
	Why     string // why it does not match; "" when it does
}

// Explain explains the decision for a call of the tool info describes
// (known: it is registered) by caller ("model" or "program"). Budgets and
// remembered approvals are state, not rules: the explanation leaves them
// out.
func (p *Policy) Explain(info tools.Info, known bool, caller string) Explanation {
	program := caller == CallerProgram
	x := Explanation{Tool: info.Name, Caller: CallerModel, Known: known}
	if program {
		x.Caller = CallerProgram
	}
	i := -1
	for k := range p.rules {
		ok, why := p.rules[k].why(info.Name, info.Annotations, known, program)
		x.Steps = append(x.Steps, Step{Rule: p.rules[k].name, Matched: ok, Why: why})
		if ok {
			i = k
			break
		}
	}
	x.Action, x.Reason, x.Rule = p.verdict(i)
	if i >= 0 {
		r := p.rules[i]
		var b []string
		if r.MaxCallsPerRun > 0 {
			b = append(b, fmt.Sprintf("at most %d per program (maxCallsPerRun)", r.MaxCallsPerRun))
		}
		if r.MaxCallsPerSession > 0 {
			b = append(b, fmt.Sprintf("at most %d per session (maxCallsPerSession)", r.MaxCallsPerSession))
		}
		x.Budgets = strings.Join(b, ", ")
	}
	return x
}

// String renders x for a person, one line per rule considered.
func (x Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, called by the %s", x.Tool, map[string]string{CallerModel: "model (a direct call)", CallerProgram: "program (a nested call)"}[x.Caller])
	if !x.Known {
		b.WriteString(" — not a registered tool: its annotations are unknown")
	}
	b.WriteString("\n")
	for _, s := range x.Steps {
		if s.Matched {
			fmt.Fprintf(&b, "  %s: matches\n", s.Rule)
		} else {
			fmt.Fprintf(&b, "  %s: no match (%s)\n", s.Rule, s.Why)
		}
	}
	if x.Rule == "default" {
		fmt.Fprintf(&b, "  no rule matches: the default decides\n")
	}
	fmt.Fprintf(&b, "decision: %s, by %s", x.Action, x.Rule)
	if x.Reason != "" {
		fmt.Fprintf(&b, " (%s)", x.Reason)
	}
	b.WriteString("\n")
	if x.Budgets != "" {
		fmt.Fprintf(&b, "budgets: %s\n", x.Budgets)
	}
	return b.String()
}
