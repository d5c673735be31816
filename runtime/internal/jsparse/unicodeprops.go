package jsparse

// codemode patch: ECMAScript's Unicode property escapes, \p{…} and \P{…}
// with the u flag (ES2018), for both of goja's pattern backends: Go's
// regexp (TransformRegExp) and regexp2 (TranslateUnicodePropertiesRegexp2).
// General_Category values and the scripts Go has are written as Go's own
// names, which both backends resolve from Go's unicode tables; the binary
// properties, Script_Extensions and the scripts newer than Go's tables are
// written as explicit class ranges, from unicodeprops_gen.go (read from V8 by
// scripts/unicodeprops.mjs). Names are matched exactly, as ECMA-262 says
// (no loose matching: \p{letter} is a SyntaxError, as in V8).

import (
	"fmt"
	"github.com/codemode/codemode/runtime/internal/runeset"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// generalCategories maps every General_Category value name and alias
// ECMA-262 accepts to Go's name for it.
var generalCategories = map[string]string{}

func init() {
	for _, g := range [][]string{
		{"C", "Other"}, {"Cc", "Control", "cntrl"}, {"Cf", "Format"}, {"Cn", "Unassigned"},
		{"Co", "Private_Use"}, {"Cs", "Surrogate"}, {"L", "Letter"}, {"LC", "Cased_Letter"},
		{"Ll", "Lowercase_Letter"}, {"Lm", "Modifier_Letter"}, {"Lo", "Other_Letter"},
		{"Lt", "Titlecase_Letter"}, {"Lu", "Uppercase_Letter"}, {"M", "Mark", "Combining_Mark"},
		{"Mc", "Spacing_Mark"}, {"Me", "Enclosing_Mark"}, {"Mn", "Nonspacing_Mark"},
		{"N", "Number"}, {"Nd", "Decimal_Number", "digit"}, {"Nl", "Letter_Number"},
		{"No", "Other_Number"}, {"P", "Punctuation", "punct"}, {"Pc", "Connector_Punctuation"},
		{"Pd", "Dash_Punctuation"}, {"Pe", "Close_Punctuation"}, {"Pf", "Final_Punctuation"},
		{"Pi", "Initial_Punctuation"}, {"Po", "Other_Punctuation"}, {"Ps", "Open_Punctuation"},
		{"S", "Symbol"}, {"Sc", "Currency_Symbol"}, {"Sk", "Modifier_Symbol"},
		{"Sm", "Math_Symbol"}, {"So", "Other_Symbol"}, {"Z", "Separator"},
		{"Zl", "Line_Separator"}, {"Zp", "Paragraph_Separator"}, {"Zs", "Space_Separator"},
	} {
		for _, n := range g {
			generalCategories[n] = g[0]
		}
	}
}

// unicodeProperty is what a property escape stands for: a name both
// backends know (goName), or the code points themselves (ranges, inclusive
// pairs, ascending).
type unicodeProperty struct {
	key    string
	goName string
	ranges []rune
}

var scxCache sync.Map // script → []rune

func scriptName(v string) (string, bool) {
	if long, ok := scriptAliases[v]; ok {
		v = long
	}
	if _, ok := unicode.Scripts[v]; ok {
		return v, true
	}
	_, ok := newScriptRanges[v]
	return v, ok
}

func scriptProperty(v string) (unicodeProperty, bool) {
	s, ok := scriptName(v)
	if !ok {
		return unicodeProperty{}, false
	}
	if r, ok := newScriptRanges[s]; ok {
		return unicodeProperty{key: "sc=" + s, ranges: r}, true
	}
	return unicodeProperty{key: "sc=" + s, goName: s}, true
}

func scriptExtensionsProperty(v string) (unicodeProperty, bool) {
	s, ok := scriptName(v)
	if !ok {
		return unicodeProperty{}, false
	}
	add, del := scriptExtensionsAdd[s], scriptExtensionsRemove[s]
	if len(add) == 0 && len(del) == 0 {
		p, _ := scriptProperty(s)
		return p, true
	}
	if r, ok := scxCache.Load(s); ok {
		return unicodeProperty{key: "scx=" + s, ranges: r.([]rune)}, true
	}
	var base []rune
	if r, ok := newScriptRanges[s]; ok {
		base = r
	} else {
		base = tableRanges(unicode.Scripts[s])
	}
	r := []rune(runeset.Subtract(runeset.Union(base, add), del))
	scxCache.Store(s, r)
	return unicodeProperty{key: "scx=" + s, ranges: r}, true
}

// lookupUnicodeProperty resolves the text between the braces of \p{…}.
func lookupUnicodeProperty(name string) (unicodeProperty, bool) {
	if k, v, ok := strings.Cut(name, "="); ok {
		switch k {
		case "General_Category", "gc":
			if g, ok := generalCategories[v]; ok {
				return unicodeProperty{key: g, goName: g}, true
			}
		case "Script", "sc":
			return scriptProperty(v)
		case "Script_Extensions", "scx":
			return scriptExtensionsProperty(v)
		}
		return unicodeProperty{}, false
	}
	if g, ok := generalCategories[name]; ok {
		return unicodeProperty{key: g, goName: g}, true
	}
	if long, ok := binaryPropertyAliases[name]; ok {
		name = long
	}
	switch name {
	case "Any":
		return unicodeProperty{key: name, ranges: []rune{0, unicode.MaxRune}}, true
	case "ASCII":
		return unicodeProperty{key: name, ranges: []rune{0, 0x7f}}, true
	}
	if r, ok := binaryPropertyRanges[name]; ok {
		return unicodeProperty{key: name, ranges: r}, true
	}
	return unicodeProperty{}, false
}

func tableRanges(t *unicode.RangeTable) []rune {
	var r []rune
	add := func(lo, hi rune) {
		if n := len(r); n > 0 && r[n-1]+1 >= lo {
			if hi > r[n-1] {
				r[n-1] = hi
			}
			return
		}
		r = append(r, lo, hi)
	}
	for _, x := range t.R16 {
		if x.Stride == 1 {
			add(rune(x.Lo), rune(x.Hi))
			continue
		}
		for c := rune(x.Lo); c <= rune(x.Hi); c += rune(x.Stride) {
			add(c, c)
		}
	}
	for _, x := range t.R32 {
		if x.Stride == 1 {
			add(rune(x.Lo), rune(x.Hi))
			continue
		}
		for c := rune(x.Lo); c <= rune(x.Hi); c += rune(x.Stride) {
			add(c, c)
		}
	}
	return r
}

// Dialects of the class text a property escape becomes.
const (
	dialectRE2     = iota // Go's regexp: \x{…}, no surrogates
	dialectRegexp2        // regexp2 with ECMAScript|Unicode: \u{…}
)

type propertyKey struct {
	key             string
	negate, inClass bool
	dialect         int
}

// propertyText caches the text of each escape that is written as ranges:
// the set of properties is fixed, so the cache is bounded (a few hundred
// entries at most), and a pattern that names \p{Alphabetic} pays for the
// text once per process.
var propertyText sync.Map // propertyKey → string

// propertyEscape is the backend text for \p{name} (or \P{name} when
// negate), inside a character class or not.
func propertyEscape(p unicodeProperty, negate, inClass bool, dialect int) string {
	if p.goName != "" {
		if negate {
			return `\P{` + p.goName + `}`
		}
		return `\p{` + p.goName + `}`
	}
	k := propertyKey{p.key, negate, inClass, dialect}
	if s, ok := propertyText.Load(k); ok {
		return s.(string)
	}
	r := p.ranges
	if negate && inClass {
		r = runeset.Complement(r, unicode.MaxRune)
	}
	if dialect == dialectRE2 {
		r = runeset.Subtract(r, []rune{0xd800, 0xdfff})
	}
	var b strings.Builder
	if !inClass {
		b.WriteByte('[')
		if negate {
			b.WriteByte('^')
		}
	}
	esc := func(c rune) {
		if dialect == dialectRE2 {
			b.WriteString(`\x{`)
		} else {
			b.WriteString(`\u{`)
		}
		b.WriteString(strconv.FormatInt(int64(c), 16))
		b.WriteByte('}')
	}
	for i := 0; i+1 < len(r); i += 2 {
		esc(r[i])
		if r[i+1] != r[i] {
			b.WriteByte('-')
			esc(r[i+1])
		}
	}
	if len(r) == 0 && inClass {
		// an empty set inside a class adds nothing, but a class cannot
		// be empty: a lone surrogate stands for nothing (Go's regexp
		// never sees one; in regexp2 it would match only U+D800 itself,
		// for \P{Any} inside a class)
		esc(0xd800)
	} else if len(r) == 0 {
		b.Reset()
		if negate {
			b.WriteString(`[\x00-\x{10ffff}]`)
		} else {
			b.WriteString(`[^\x00-\x{10ffff}]`)
		}
	}
	if !inClass && len(r) > 0 {
		b.WriteByte(']')
	}
	s := b.String()
	propertyText.Store(k, s)
	return s
}

// CheckUnicodePropertyEscapes reports the first \p or \P escape of a u-mode
// pattern whose property V8 does not know, as V8's message.
func CheckUnicodePropertyEscapes(pattern, flags string) error {
	if !strings.Contains(pattern, `\p`) && !strings.Contains(pattern, `\P`) {
		return nil
	}
	inClass := false
	rangeDash := false // the previous class item is a '-' between two atoms
	classStart := 0
	fail := func(msg string) error {
		return fmt.Errorf("Invalid regular expression: /%s/%s: %s", pattern, flags, msg)
	}
	for i := 0; i < len(pattern); i++ {
		dash := false
		switch pattern[i] {
		case '[':
			if !inClass {
				inClass = true
				classStart = i + 1
				if i+1 < len(pattern) && pattern[i+1] == '^' {
					classStart++
				}
			}
		case ']':
			inClass = false
		case '-':
			dash = inClass && i > classStart
		case '\\':
			if i+1 >= len(pattern) {
				return nil
			}
			i++
			if c := pattern[i]; c == 'p' || c == 'P' {
				name, n, ok := propertyName(pattern[i+1:])
				if ok {
					_, ok = lookupUnicodeProperty(name)
				}
				if !ok {
					if inClass {
						return fail("Invalid property name in character class")
					}
					return fail("Invalid property name")
				}
				i += n
				// a property cannot bound a class range
				if inClass && (rangeDash || i+2 < len(pattern) && pattern[i+1] == '-' && pattern[i+2] != ']') {
					return fail("Invalid character class")
				}
			}
		}
		rangeDash = dash
	}
	return nil
}

// propertyName reads "{name}" at the start of s: the name and the bytes read.
func propertyName(s string) (string, int, bool) {
	if len(s) < 2 || s[0] != '{' {
		return "", 0, false
	}
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", 0, false
	}
	return s[1:end], end + 1, true
}

// TranslateUnicodePropertiesRegexp2 rewrites the property escapes of a
// u-mode pattern (already checked) into what regexp2 reads the same way.
func TranslateUnicodePropertiesRegexp2(pattern string) string {
	if !strings.Contains(pattern, `\p`) && !strings.Contains(pattern, `\P`) {
		return pattern
	}
	var b strings.Builder
	inClass := false
	last := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '\\':
			if i+1 >= len(pattern) {
				break
			}
			start := i
			i++
			if c := pattern[i]; c == 'p' || c == 'P' {
				name, n, ok := propertyName(pattern[i+1:])
				if !ok {
					break
				}
				p, ok := lookupUnicodeProperty(name)
				if !ok {
					break
				}
				b.WriteString(pattern[last:start])
				b.WriteString(propertyEscape(p, c == 'P', inClass, dialectRegexp2))
				i += n
				last = i + 1
			}
		}
	}
	if last == 0 {
		return pattern
	}
	b.WriteString(pattern[last:])
	return b.String()
}

// PropertyRanges resolves the text between the braces of \p{…} to its code
// points as inclusive pairs (lo, hi), ascending; ok is false for a name V8
// does not know. The slice may be shared: the caller must not modify it.
func PropertyRanges(name string) (ranges []rune, ok bool) {
	p, ok := lookupUnicodeProperty(name)
	if !ok {
		return nil, false
	}
	if p.ranges != nil {
		return p.ranges, true
	}
	if t, ok := unicode.Categories[p.goName]; ok {
		return tableRanges(t), true
	}
	if t, ok := unicode.Scripts[p.goName]; ok {
		return tableRanges(t), true
	}
	return nil, false
}
