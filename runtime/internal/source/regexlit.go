package source

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/codemode/codemode/runtime/internal/jsparse"
	"github.com/codemode/codemode/runtime/internal/regexlower"
)

// QuickJS-ng 0.12 refuses the v flag's set operations, regexp modifiers
// and duplicate named groups, and its regexp compiler is in the wasm module we cannot
// rebuild. For QuickJS, a regular expression literal that uses either is
// replaced by a call of the prelude's __cmRegExp (es.js, feature
// regExpLower) with the pattern regexlower rewrote, its flags, and the
// program's own source and flags, which the object then reports. An
// invalid pattern is the program's SyntaxError at the literal (QuickJS
// accepts some, such as [a&&&b]); valid syntax the rewriting cannot
// express is left to QuickJS, which may know it (the properties of
// strings, \p{RGI_Emoji}) or reports its own SyntaxError.

// regexCandidate is a cheap test for text that may hold such a literal: a
// modifier group's "(?i", "(?m", "(?s", "(?-", a slash then flags with v,
// or two named groups (a name QuickJS-ng 0.12 refuses to see repeated).
var regexCandidate = regexp.MustCompile(`\(\?[ims-]|/[dgimsuy]*v[dgimsuy]*(?:[^\w$]|$)|\(\?<[^=!][\s\S]*\(\?<[^=!]`)

// RegExpHelper is the prelude's function the rewritten literals call.
const RegExpHelper = "__cmRegExp"

// lowerRegExpLiterals rewrites s.JS's literals that QuickJS cannot compile.
// A script goja's parser cannot read (QuickJS-only syntax printed by
// esbuild) is left as it is: QuickJS reports the literal.
func lowerRegExpLiterals(s *Script, code string, popts []jsparse.Option) (*Script, error) {
	if !regexCandidate.MatchString(code) {
		return s, nil
	}
	type lit struct {
		start, end     int
		pattern, flags string
	}
	var lits []lit
	seen := map[int]bool{}
	opts := append(append([]jsparse.Option(nil), popts...), jsparse.WithRegExpLiterals(func(start, end int, pattern, flags string) {
		if !seen[start] && (regexlower.Needs(pattern, flags) || strings.Count(pattern, "(?<") > 1) {
			seen[start] = true
			lits = append(lits, lit{start, end, pattern, flags})
		}
	}))
	if _, err := jsparse.ParseFile(nil, "", s.JS, 0, opts...); err != nil || len(lits) == 0 {
		return s, nil
	}
	var b strings.Builder
	pos := 0
	for _, l := range lits {
		if l.start < pos {
			continue
		}
		lowered, lflags, err := l.pattern, l.flags, error(nil)
		if regexlower.Needs(l.pattern, l.flags) {
			lowered, lflags, err = regexlower.Lower(l.pattern, l.flags)
		}
		if err == nil {
			lowered, err = regexlower.RenameDuplicateGroups(lowered, l.flags)
		}
		var le *regexlower.Error
		if errors.As(err, &le) && le.Unsupported || err == nil && lowered == l.pattern && lflags == l.flags {
			// valid, but beyond the rewriting: QuickJS decides (it has
			// the properties of strings, \p{RGI_Emoji})
			continue
		}
		if err != nil {
			line := strings.Count(s.JS[:l.start], "\n") + 1
			col := l.start - strings.LastIndexByte(s.JS[:l.start], '\n')
			line, col = s.Position(line, col)
			return nil, syntaxError(err.Error(), line, col)
		}
		b.WriteString(s.JS[pos:l.start])
		b.WriteString(RegExpHelper + "(")
		for i, a := range []string{lowered, lflags, l.pattern, l.flags} {
			if i > 0 {
				b.WriteByte(',')
			}
			j, _ := json.Marshal(a)
			b.Write(j)
		}
		b.WriteByte(')')
		pos = l.end
	}
	b.WriteString(s.JS[pos:])
	out := *s
	out.JS = b.String()
	return &out, nil
}

// LowerRegExpLiterals is lowerRegExpLiterals for a whole global script
// (the test262 runner's sandbox side, which evaluates test files as they
// are): the script with its literals rewritten, or the SyntaxError of an
// invalid one.
func LowerRegExpLiterals(js string) (string, error) {
	s, err := lowerRegExpLiterals(&Script{JS: js}, js, parseOptions(DefaultMaxNestingDepth))
	if err != nil {
		return "", err
	}
	return s.JS, nil
}
