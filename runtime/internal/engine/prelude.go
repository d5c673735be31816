package engine

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The prelude is the sandbox's JavaScript surface, run once in every realm
// before any program. It is assembled from shared modules (prelude/*.js,
// in preludeModules order) and an engine's glue, which supplies what the
// modules leave to it:
//
//	hostLog(level, text)         a console line, to Run.Log
//	hostRefusal(name)            a nested call's first step, before its
//	                             arguments are read (Run.Refused): the
//	                             run's rejected promise past its limit,
//	                             else undefined
//	hostCall(name, json)         a nested call, to Run.Call: its promise,
//	                             or undefined when the run has ended
//	hostTools()                  the run's tool names, when begin had none
//	makeTools(makeTraps)         the global `tools`, with the semantics of the
//	                             traps makeTraps() returns (new Proxy({},
//	                             makeTraps()), or a native equivalent that
//	                             may call makeTraps on first use)
//	reserve(what, bytes, buffer) why an allocation breaks the budget, or ""
//	hostTimer(id, ms, fire, rearm), hostClearTimer(id)
//	                             the run's timers (see timers.js)
//	glueEntries                  the glue's own entry points (an array)
//	glueLate()                   optional: what the glue makes or reads
//	                             only for the paths made on first use,
//	                             called by common.js's lateLoad the first
//	                             time one of them needs the late
//	                             intrinsics (goja: the natives those paths
//	                             call, each made when first read)
//
// and the engine's own size checks (join, Array.from, …). The result is
// one function expression, (function (native) { … }), which the engine
// evaluates under the name PreludeName and calls with its native bindings
// (goja: Go functions; QuickJS: one host function); it returns the entry
// points, indexed by the Entry constants, then the glue's.
//
// All modules share one scope: a module may use what an earlier one
// defined, and what the glue defines: at setup only its function
// declarations (hoisted with their values; makeTools must be one) and
// what its head assigns (PreludeWithHead: a part of the glue that runs
// before the modules, so that it can hand them a native as it is instead
// of a function declaration that forwards to it), later its vars too.

//go:embed prelude/*.js
var preludeFS embed.FS

// preludeModules are the shared modules, in order; end.js follows the glue.
var preludeModules = []string{"common.js", "console.js", "globals.js", "timers.js", "tools.js", "sizes.js", "es.js", "web.js", "intl.js"}

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
	// EntryPolyfill is polyfill(names): install the es.js features named
	// (comma-separated; see [Polyfills]) that the engine lacks.
	EntryPolyfill
	// EntryGlue is the index of the glue's first entry point.
	EntryGlue
)

// Prelude returns the prelude with glue, the engine's part, in it.
func Prelude(glue string) string { return PreludeWithHead("", glue) }

// PreludeWithHead returns the prelude with the engine's part in it: head
// runs first, before the shared modules, glue after them.
func PreludeWithHead(head, glue string) string {
	var b strings.Builder
	b.WriteString("(function (native) {\n\"use strict\";\n")
	if head != "" {
		b.WriteString("// ---- the engine's glue, its head\n")
		b.WriteString(head)
		b.WriteString("\n")
	}
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

// polyfillWords are the features of es.js, each with the word whose
// presence in a script installs it (a program that reaches one by a
// computed name only, Object["group" + "By"], does not get it).
var polyfillWords = [...]struct{ word, feature string }{
	{"groupBy", "groupBy"},
	{"withResolvers", "withResolvers"},
	{".try", "promiseTry"},
	{"WellFormed", "wellFormed"},
	{"asyncIterator", "asyncIterator"},
	{"fromAsync", "fromAsync"},
	{".escape", "regExpEscape"},
	{"RegExp", "regExpLower"}, // RegExp, and source's __cmRegExp
	{"sumPrecise", "sumPrecise"},
	{"WeakRef", "weakRef"},
	{"FinalizationRegistry", "weakRef"},
	{"Base64", "base64"},
	{"Hex(", "base64"},
	// Iterator helpers are methods of every iterator: a program that
	// names Iterator, makes an iterator (generators, .values(), .keys(),
	// .entries(), matchAll, [Symbol.iterator]()) gets them.
	{"Iterator", "iterator"},
	{"function*", "iterator"},
	{"function *", "iterator"},
	{"*[", "iterator"},
	{"values()", "iterator"},
	{"keys()", "iterator"},
	{"entries()", "iterator"},
	{"matchAll", "iterator"},
	{"iterator]()", "iterator"},
}

// PolyfillNeeds is the argument of the prelude's polyfill that returns
// the es.js features an engine lacks or gets wrong (comma-separated).
const PolyfillNeeds = "?"

// PolyfillSkip returns the bit set (as Polyfills takes it) of the words
// whose feature is not among needed, what polyfill(PolyfillNeeds)
// returned: an engine asks once, and then never installs, nor pays to
// look for, the features it has.
func PolyfillSkip(needed string) uint32 {
	var skip uint32
	have := strings.Split(needed, ",")
	for i, p := range polyfillWords {
		if !slices.Contains(have, p.feature) {
			skip |= 1 << i
		}
	}
	return skip
}

// Polyfills returns the es.js features a script names that are not in
// installed (a bit set, bit i for polyfillWords[i]; PolyfillSkip's bits
// too), comma-separated for the prelude's polyfill, and the set with them
// added. An engine calls polyfill with them before it evaluates the
// script: nothing is built until a program names it.
func Polyfills(script string, installed uint32) (string, uint32) {
	var names []string
	for i, p := range polyfillWords {
		if installed&(1<<i) == 0 && strings.Contains(script, p.word) {
			installed |= 1 << i
			if !slices.Contains(names, p.feature) {
				names = append(names, p.feature)
			}
		}
	}
	return strings.Join(names, ","), installed
}
