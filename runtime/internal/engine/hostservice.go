package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/codemode/codemode/runtime/internal/regexlower"
	"github.com/codemode/codemode/runtime/internal/webapi"
)

// HostService answers the prelude's web and Intl host functions (web.js,
// intl.js): both engines' glue pass hostService(op, arg) here. The answer
// is "=" + the result, or "!" + the error's name + "\n" + its message,
// which the prelude throws as that JavaScript error. Go symbols never
// reach a program: the function programs see is the prelude's. zone is the
// environment's time zone (canonical, see TimeZone): Intl's default.
func HostService(zone, op, arg string) (answer string) {
	defer func() {
		// A host function never takes the process down: a bug in one
		// (or in x/text under it) is the program's Error.
		if p := recover(); p != nil {
			answer = "!Error\n" + op + ": internal error in a host function"
		}
	}()
	if op == "regexLower" {
		return regexLower(arg)
	}
	s, err := webapi.CallIn(zone, op, arg)
	if err == nil {
		return "=" + s
	}
	var e *webapi.Error
	if errors.As(err, &e) {
		return "!" + e.Name + "\n" + e.Message
	}
	return "!Error\n" + err.Error()
}

// regexLower answers es.js's regExpLower: arg is the JSON [pattern,
// flags], the answer the JSON [pattern, flags] regexlower made of them
// (lowered, and a repeated group name renamed), its SyntaxError, or
// "Unsupported" for valid syntax the rewriting cannot express.
func regexLower(arg string) string {
	var pf [2]string
	if err := json.Unmarshal([]byte(arg), &pf); err != nil {
		return "!TypeError\nregexLower: bad argument"
	}
	p, f := pf[0], pf[1]
	var err error
	if regexlower.Needs(p, f) {
		p, f, err = regexlower.Lower(p, f)
	}
	if err == nil {
		p, err = regexlower.RenameDuplicateGroups(p, f)
	}
	if err != nil {
		var le *regexlower.Error
		if errors.As(err, &le) && le.Unsupported {
			return "!Unsupported\n" + err.Error()
		}
		return "!SyntaxError\n" + err.Error()
	}
	b, _ := json.Marshal([2]string{p, f})
	return "=" + string(b)
}

// webWords are the web globals of the prelude's web.js and intl.js, each
// with the word whose presence in a script builds it on an engine that
// builds them on demand (goja; see web.js). "locale" is the built-ins'
// locale methods (toLocaleString, localeCompare). A program that reaches
// one by a computed name only (globalThis["U" + "RL"]) does not get it.
var webWords = [...]struct{ word, name string }{
	{"URL", "URL"},
	{"TextEncoder", "TextEncoder"},
	{"TextDecoder", "TextDecoder"},
	{"atob", "atob"},
	{"btoa", "btoa"},
	{"structuredClone", "structuredClone"},
	{"rypto", "crypto"}, // crypto, Crypto, SubtleCrypto
	{"erformance", "performance"},
	{"Abort", "AbortController"},
	{"Event", "Event"},
	{"DOMException", "DOMException"},
	{"Intl", "Intl"},
	{"toLocale", "locale"},
	{"localeCompare", "locale"},
}

// WebGlobals returns the web globals a script names that are not in
// installed (a bit set, bit i for webWords[i]), comma-separated for the
// prelude's webInstall, and the set with them added.
func WebGlobals(script string, installed uint32) (string, uint32) {
	var names []string
	for i, w := range webWords {
		if installed&(1<<i) == 0 && strings.Contains(script, w.word) {
			installed |= 1 << i
			names = append(names, w.name)
		}
	}
	return strings.Join(names, ","), installed
}

// TimeZone resolves a configured time zone name ("" is UTC): its canonical
// name (Intl's resolvedOptions().timeZone) and its location (Date's local
// time). An unknown name is an error naming it.
func TimeZone(name string) (string, *time.Location, error) {
	if name == "" {
		return "UTC", time.UTC, nil
	}
	canon, loc, err := webapi.TimeZone(name)
	if err != nil {
		return "", nil, fmt.Errorf("%q is not a time zone (want an IANA name such as \"Europe/Paris\", an offset such as \"+05:30\", or \"UTC\")", name)
	}
	return canon, loc, nil
}
