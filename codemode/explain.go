package codemode

import (
	"fmt"
	"strings"

	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// Errors that teach: a program's failed nested call is reworded so that
// its author can fix the next program without a discovery round trip.
//
//   - INVALID_ARGUMENTS keeps the failing path and adds the tool's
//     signature;
//   - UNKNOWN_TOOL keeps its suggestions and adds the best one's
//     signature, or says how to list the tools when there is none;
//   - a tool of a configured server that never listed its tools (it
//     failed to start) is UPSTREAM_UNAVAILABLE with the server's error,
//     not UNKNOWN_TOOL.
//
// The wording is built here, in Go, so it is the same on every engine.

// explainer returns the ptc.Options.Explain of agent's programs.
func (p *Plugin) explainer(agent *tools.Agent) func(name string, err *errs.Error) *errs.Error {
	return func(name string, err *errs.Error) *errs.Error {
		switch err.Code {
		case errs.CodeInvalidArguments:
			if in, ok := p.reg.Lookup(name, agent); ok {
				return withSignature(err, "expected", in)
			}
		case errs.CodeUnknownTool:
			if server := serverOf(name); server != "" {
				if st, ok := p.serverState(server); ok && !st.Ready() {
					return serverUnavailable(name, st)
				}
			}
			sugg, _ := err.Info["suggestions"].([]string)
			if len(sugg) > 0 {
				if in, ok := p.reg.Lookup(sugg[0], agent); ok {
					return withSignature(err, "closest", in)
				}
			}
			if !strings.Contains(err.Message, "code_tools_") {
				c := *err
				c.Message += "\nList the callable tools with await tools.code_tools_list({}), or search them with await tools.code_tools_search({ query: \"…\" })."
				return &c
			}
		}
		return err
	}
}

// withSignature adds in's signature to err on a line of its own, and to
// its Info.
func withSignature(err *errs.Error, label string, in tools.Info) *errs.Error {
	sig := callForm(in.Name) + signatureTail(in)
	c := *err
	c.Message += "\n" + label + ": " + sig
	c.Info = make(map[string]any, len(err.Info)+1)
	for k, v := range err.Info {
		c.Info[k] = v
	}
	c.Info["signature"] = sig
	return &c
}

// callForm is how a program names a tool: tools.name, or tools["name"].
func callForm(name string) string {
	if isIdent(name) {
		return "tools." + name
	}
	return "tools[" + jsonQuote(name) + "]"
}

// serverUnavailable is the error of a call to a tool of a server that is
// not ready and has no such tool registered (it never listed its tools).
func serverUnavailable(name string, st ServerState) *errs.Error {
	msg := fmt.Sprintf("upstream server %q is %s and has not listed its tools", st.Name, st.State)
	if st.Err != "" {
		msg += " (" + human.OneLine(st.Err, 1000) + ")"
	}
	msg += fmt.Sprintf("; %s cannot be called until it starts", name)
	return &errs.Error{Code: errs.CodeUpstreamUnavailable, Message: msg, Info: map[string]any{"server": st.Name, "state": st.State}}
}

// resetNote is the line a result starts with when the persistent
// environment was reset since the agent's last program ("" when it was
// not).
func (p *Plugin) resetNote(cause runtime.ResetCause) string {
	var why string
	switch cause {
	case "":
		return ""
	case runtime.ResetRequested:
		why = "as you asked (reset: true)"
	case runtime.ResetTimeout:
		why = "your previous program timed out, and the engine had to discard its environment to stop it"
	case runtime.ResetMemory:
		why = "your previous program exceeded the memory budget"
	case runtime.ResetMemoryBudget:
		why = "it was released to keep the server within its memory budget (idle environments go first, least recently used first); keep less in globals, or retry if a program was refused with OVERLOADED"
	case runtime.ResetStackOverflow:
		why = "your previous program overflowed the stack, and the engine discarded its environment"
	case runtime.ResetIdle:
		why = fmt.Sprintf("it was idle for more than %s", human.Duration(p.envs.Options().IdleTTL))
	case runtime.ResetEvicted:
		why = fmt.Sprintf("it was evicted to make room (at most %d environments are kept, least recently used first)", p.envs.Options().MaxEnvironments)
	default:
		why = "your previous program left it unusable"
	}
	return "[environment reset: " + why + "; top-level names from earlier programs are gone]"
}
