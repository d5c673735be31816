package codemode

import (
	"context"
	"strings"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

const recentCalls = 20

// debugState is what code_debug reports for one agent.
type debugState struct {
	LastError *debugError    `json:"lastError"`
	Calls     []debugCall    `json:"recentCalls"`
	Globals   []string       `json:"globals"` // live: see debugTool
	Mode      runtime.Mode   `json:"mode"`
	Engine    string         `json:"engine"`
	Limits    map[string]any `json:"limits"`
}

type debugError struct {
	Code       errs.Code `json:"code"`
	Message    string    `json:"message"`
	Stack      string    `json:"stack,omitempty"`
	Line       any       `json:"line,omitempty"`
	Column     any       `json:"column,omitempty"`
	SourceLine string    `json:"sourceLine,omitempty"`
}

type debugCall struct {
	ID    string    `json:"id"`
	Name  string    `json:"name"`
	Ms    float64   `json:"ms"`
	Error errs.Code `json:"error,omitempty"`
}

func (p *Plugin) recordDebug(agent *tools.Agent, code string, out runtime.Outcome) {
	id := ""
	if agent != nil {
		id = agent.ID()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.debug[id]
	if st == nil {
		st = &debugState{}
		p.debug[id] = st
		if agent != nil {
			agent.Scope().Effect(func() { p.mu.Lock(); delete(p.debug, id); p.mu.Unlock() })
		}
	}
	if out.Err != nil {
		de := &debugError{Code: out.Err.Code, Message: out.Err.Message}
		de.Stack, _ = out.Err.Info["stack"].(string)
		de.Line, de.Column = out.Err.Info["line"], out.Err.Info["column"]
		if n, ok := errs.IntOf(de.Line); ok {
			lines := strings.Split(code, "\n")
			if n >= 1 && n <= len(lines) {
				de.SourceLine = lines[n-1]
			}
		}
		st.LastError = de
	}
	for _, c := range out.Calls {
		st.Calls = append(st.Calls, debugCall{ID: c.ID, Name: c.Name, Ms: float64(c.Duration.Microseconds()) / 1000, Error: c.Code})
	}
	if len(st.Calls) > recentCalls {
		// Keep the newest in place: the backing array is reused, not
		// reallocated on every run (code_debug copies what it returns).
		n := copy(st.Calls, st.Calls[len(st.Calls)-recentCalls:])
		clear(st.Calls[n:])
		st.Calls = st.Calls[:n]
	}
}

func (p *Plugin) debugTool(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
	id := ""
	if a := e.Agent(); a != nil {
		id = a.ID()
	}
	p.mu.Lock()
	st := debugState{}
	if s := p.debug[id]; s != nil {
		st = *s
		st.Calls = append([]debugCall(nil), s.Calls...)
	}
	p.mu.Unlock()
	if st.Calls == nil {
		st.Calls = []debugCall{}
	}
	// Only live state: the names of the environment as it is now (a reset
	// since the last program wiped them), not as the last program left it.
	st.Globals = p.envs.Globals(p.owner(e.Agent()))
	if st.Globals == nil {
		st.Globals = []string{}
	}
	lim := p.rt.Limits()
	st.Mode, st.Engine = p.opts.Mode, p.rt.Engine()
	st.Limits = map[string]any{"timeoutMs": lim.Timeout.Milliseconds(), "maxSubcalls": lim.MaxSubcalls, "maxConcurrentSubcalls": lim.MaxConcurrentSubcalls, "maxLogBytes": lim.MaxLogBytes, "maxResultBytes": lim.MaxResultBytes, "memoryBytes": lim.MemoryBytes}
	return tools.ValueResult(st)
}
