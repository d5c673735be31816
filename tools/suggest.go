package tools

import (
	"strings"

	"github.com/codemode/codemode/tools/errs"
)

// unknown builds the UNKNOWN_TOOL error for name with close-name
// suggestions from agent's view.
func (r *Registry) unknown(name string, agent *Agent) *errs.Error {
	var names []string
	for _, it := range r.tools.List(agent.view()) {
		names = append(names, it.Name)
	}
	sugg := errs.Suggest(name, names, 3)
	msg := "unknown tool " + quote(name)
	if len(sugg) > 0 {
		msg += "; did you mean " + strings.Join(quoteAll(sugg), ", ") + "?"
	}
	e := &errs.Error{Code: errs.CodeUnknownTool, Message: msg}
	if len(sugg) > 0 {
		e.Info = map[string]any{"suggestions": sugg}
	}
	return e
}

func quote(s string) string { return `"` + s + `"` }

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}
