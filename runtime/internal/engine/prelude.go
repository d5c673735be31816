package engine

import (
	"embed"
	"encoding/json"
	"fmt"
	"strings"
)

// The prelude is the sandbox's JavaScript surface, run once in every realm
// before any program. It is assembled from shared modules (prelude/*.js,
// in preludeModules order) and an engine's glue, which supplies what the
// modules leave to it:
//
//	hostLog(level, text)         a console line, to Run.Log
//	hostCall(name, json)         a nested call, to Run.Call: its promise,
//	                             or undefined when the run has ended
//	hostTools()                  the run's tool names, when begin had none
//	makeTools(traps)             the global `tools`, with the semantics of traps
//	                             (new Proxy({}, traps), or a native equivalent)
//	reserve(what, bytes, buffer) why an allocation breaks the budget, or ""
//	glueEntries                  the glue's own entry points (an array)
//
// and the engine's own size checks (join, Array.from, …). The result is
// one function expression, (function (native) { … }), which the engine
// evaluates under the name PreludeName and calls with its native bindings
// (goja: Go functions; QuickJS: one host function); it returns the entry
// points, indexed by the Entry constants, then the glue's.
//
// All modules share one scope: a module may use what an earlier one
// defined, and what the glue defines: at setup only its function
// declarations (hoisted with their values; makeTools must be one), later
// its vars too.

//go:embed prelude/*.js
var preludeFS embed.FS

// preludeModules are the shared modules, in order; end.js follows the glue.
var preludeModules = []string{"common.js", "console.js", "globals.js", "tools.js", "sizes.js", "web.js", "intl.js"}

// PreludeName is the script name of the prelude: stack frames that name it
// are the sandbox's own and are dropped from a program's stacks.
const PreludeName = "codemode:prelude"

// The prelude's entry points, in the order it returns them.
const (
	// EntryBegin is begin(toolNames, memoryLimit): a run starts.
	EntryBegin = iota
	// EntryOutcome is outcome(ok, value): the "u" | "v"+JSON | "e"+JSON
	// string that Run.Done takes.
	EntryOutcome
	// EntryDescribe is describe(exception): the JSON of a Thrown.
	EntryDescribe
	// EntryGlobals is globals(): the names programs added, sorted.
	EntryGlobals
	// EntryBindingError is bindingError(code, message, info): the Error a
	// binding rejects with.
	EntryBindingError
	// EntryGlue is the index of the glue's first entry point.
	EntryGlue
)

// Prelude returns the prelude with glue, the engine's part, in it.
func Prelude(glue string) string {
	var b strings.Builder
	b.WriteString("(function (native) {\n\"use strict\";\n")
	for _, m := range append(preludeModules, "", "end.js") {
		if m == "" {
			b.WriteString("// ---- the engine's glue\n")
			b.WriteString(glue)
			b.WriteString("\n")
			continue
		}
		src, err := preludeFS.ReadFile("prelude/" + m)
		if err != nil {
			panic(fmt.Sprintf("engine: prelude module %s: %v", m, err)) // embedded: cannot happen
		}
		b.WriteString("// ---- " + m + "\n")
		b.Write(src)
		b.WriteString("\n")
	}
	b.WriteString("})")
	return b.String()
}

// ParseThrown reads the JSON of the prelude's describe.
func ParseThrown(s string) (*Thrown, error) {
	var t Thrown
	if err := json.Unmarshal([]byte(s), &t); err != nil {
		return nil, fmt.Errorf("reading an exception: %w", err)
	}
	return &t, nil
}
