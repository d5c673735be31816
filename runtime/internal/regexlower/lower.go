// Package regexlower rewrites an ECMAScript regular expression that uses
// the ES2024–ES2025 syntax an engine may lack — the v flag (unicodeSets:
// nested classes, set difference --, intersection &&, \q{…} strings) and
// pattern modifiers ((?i:…), (?-i:…), (?ims-ims:…)) — into an equivalent
// pattern an engine that knows only the u flag and no modifiers runs with
// the same matches, captures and indices.
//
// How: a v-flag class becomes a u-flag class of the code points its set
// operations compute (ranges, never one alternative per code point), its
// strings an alternation, longest first, as the spec orders them; under i
// the operands are case-folded first, as the spec's MaybeSimpleCaseFolding.
// A modifier group becomes a non-capturing group whose atoms carry its
// flags explicitly: a cased character or class under i becomes the class of
// its case variants (Unicode simple case folding with u or v, the
// toUpperCase rule of ECMA-262's Canonicalize without), ^ and $ under m
// lookarounds on the line terminators, . under s [\s\S]; a group that turns
// i off inside an i pattern lowers the whole pattern without the i flag.
// What cannot be said that way (a backreference whose comparison the
// modifier changes, the properties of strings such as \p{RGI_Emoji}, a
// pattern whose lowering exceeds MaxLoweredLen) is a SyntaxError with a
// message, never a pattern that matches differently.
package regexlower

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemode/codemode/runtime/internal/jsparse"
	"github.com/codemode/codemode/runtime/internal/runeset"
)

// MaxLoweredLen bounds the lowered pattern, in bytes.
const MaxLoweredLen = 64 << 10

// Needs reports whether the pattern may need lowering: the v flag, or a
// "(?" followed by a modifier flag or '-'. False positives are harmless
// (Lower then returns an equivalent pattern).
func Needs(pattern, flags string) bool {
	if strings.IndexByte(flags, 'v') >= 0 {
		return true
	}
	for i := 0; ; {
		j := strings.Index(pattern[i:], "(?")
		if j < 0 {
			return false
		}
		bs := 0
		for k := i + j - 1; k >= 0 && pattern[k] == '\\'; k-- {
			bs++
		}
		i += j + 2
		if bs%2 == 0 && i < len(pattern) {
			switch pattern[i] {
			case 'i', 'm', 's', '-':
				return true
			}
		}
	}
}

// Error is a pattern the lowering refuses: an ECMAScript SyntaxError, or,
// with Unsupported, valid syntax the rewriting cannot express (an engine
// that knows it natively may still compile it).
type Error struct {
	Msg         string
	Unsupported bool
}

func (e *Error) Error() string { return e.Msg }

type bailout struct {
	msg         string
	unsupported bool
}

// Lower returns a pattern and flags equivalent to pattern and flags
// without the v flag (it becomes u) and without modifier groups. The flags
// may lose i (when a group turns it off: the lowered pattern then spells
// out case-insensitivity itself); the caller reports the program's own
// flags.
func Lower(pattern, flags string) (lowered, loweredFlags string, err error) {
	seen := map[rune]bool{}
	for _, c := range flags {
		if !strings.ContainsRune("dgimsuvy", c) || seen[c] {
			return "", "", &Error{Msg: fmt.Sprintf("Invalid flags supplied to RegExp constructor '%s'", flags)}
		}
		seen[c] = true
	}
	if seen['u'] && seen['v'] {
		return "", "", &Error{Msg: fmt.Sprintf("Invalid flags supplied to RegExp constructor '%s'", flags)}
	}
	l := newLowerer(pattern, flags, seen)
	out, err := l.run()
	if err != nil {
		return "", "", err
	}
	dropI := false
	if l.minusI {
		dropI = true
		l = newLowerer(pattern, flags, seen)
		l.baseI = false
		if out, err = l.run(); err != nil {
			return "", "", err
		}
	}
	var fb strings.Builder
	for _, c := range flags {
		switch {
		case c == 'v':
			fb.WriteByte('u')
		case c == 'i' && dropI:
		default:
			fb.WriteRune(c)
		}
	}
	return out, fb.String(), nil
}

type modes struct{ i, m, s bool }

type lowerer struct {
	src                 []rune
	pos                 int
	unicode, vmode      bool
	flagI               bool
	baseI, baseM, baseS bool
	minusI              bool
	captures            int
	names               bool
	fold                *folding // built on first use (folding)
	out                 strings.Builder
	pattern, flags      string
}

func newLowerer(pattern, flags string, f map[rune]bool) *lowerer {
	l := &lowerer{
		unicode: f['u'] || f['v'], vmode: f['v'],
		flagI: f['i'], baseI: f['i'], baseM: f['m'], baseS: f['s'],
		pattern: pattern, flags: flags,
	}
	for _, r := range pattern {
		if !l.unicode && r > 0xFFFF {
			a, b := utf16.EncodeRune(r)
			l.src = append(l.src, a, b)
			continue
		}
		l.src = append(l.src, r)
	}
	return l
}

// folding is the case folding of the pattern's mode, built once per process
// the first time a pattern needs it (~2 ms, 0.5 MB allocated).
func (l *lowerer) folding() *folding {
	if l.fold == nil {
		l.fold = foldingFor(l.unicode)
	}
	return l.fold
}

func (l *lowerer) fail(msg string) {
	panic(bailout{msg: fmt.Sprintf("Invalid regular expression: /%s/%s: %s", l.pattern, l.flags, msg)})
}

// unsupported refuses valid syntax the rewriting cannot express.
func (l *lowerer) unsupported(msg string) {
	panic(bailout{msg: fmt.Sprintf("Invalid regular expression: /%s/%s: %s", l.pattern, l.flags, msg), unsupported: true})
}

func (l *lowerer) run() (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = &Error{Msg: b.msg, Unsupported: b.unsupported}
		}
	}()
	l.prescan()
	l.disjunction(modes{l.flagI, l.baseM, l.baseS}, 0)
	if l.out.Len() > MaxLoweredLen {
		l.unsupported(fmt.Sprintf("the pattern is too large once rewritten for this engine (%d bytes, limit %d)", l.out.Len(), MaxLoweredLen))
	}
	return l.out.String(), nil
}

// prescan counts the capturing groups and notes named ones (a non-u
// pattern's \k and \N depend on them).
func (l *lowerer) prescan() {
	inClass := false
	for i := 0; i < len(l.src); i++ {
		switch l.src[i] {
		case '\\':
			i++
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '(':
			if inClass {
				continue
			}
			if i+1 < len(l.src) && l.src[i+1] == '?' {
				if i+2 < len(l.src) && l.src[i+2] == '<' && i+3 < len(l.src) && l.src[i+3] != '=' && l.src[i+3] != '!' {
					l.captures++
					l.names = true
				}
				continue
			}
			l.captures++
		}
	}
}

func (l *lowerer) eof() bool { return l.pos >= len(l.src) }

func (l *lowerer) peek(k int) rune {
	if l.pos+k < len(l.src) {
		return l.src[l.pos+k]
	}
	return -1
}

func (l *lowerer) grow() {
	if l.out.Len() > MaxLoweredLen {
		l.unsupported(fmt.Sprintf("the pattern is too large once rewritten for this engine (limit %d bytes)", MaxLoweredLen))
	}
}

// verbatim copies src[from:l.pos].
func (l *lowerer) verbatim(from int) {
	for _, c := range l.src[from:l.pos] {
		l.raw(c)
	}
}

func (l *lowerer) raw(c rune) {
	if c >= 0xD800 && c <= 0xDFFF {
		l.out.WriteString(`\u`)
		l.hex4(c)
		return
	}
	l.out.WriteRune(c)
}

// char writes c as a literal, escaped unless it is an ASCII letter or digit.
func (l *lowerer) char(c rune) {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		l.out.WriteRune(c)
	case l.unicode && c > 0xFFFF:
		l.out.WriteString(`\u{`)
		l.hex4(c >> 16)
		l.hex4(c & 0xFFFF)
		l.out.WriteByte('}')
	default:
		l.out.WriteString(`\u`)
		l.hex4(c)
	}
}

// hex4 writes the low 16 bits of c as four hex digits (the leading zeros
// of an astral code point's high half are harmless in \u{…}).
func (l *lowerer) hex4(c rune) {
	const digits = "0123456789ABCDEF"
	l.out.WriteByte(digits[c>>12&0xF])
	l.out.WriteByte(digits[c>>8&0xF])
	l.out.WriteByte(digits[c>>4&0xF])
	l.out.WriteByte(digits[c&0xF])
}

func (l *lowerer) class(s charset, negated bool) {
	if !negated && len(s) == 2 && s[0] == s[1] {
		l.char(s[0])
		return
	}
	if negated {
		l.out.WriteString("[^")
	} else {
		l.out.WriteByte('[')
	}
	for i := 0; i < len(s); i += 2 {
		l.char(s[i])
		if s[i+1] != s[i] {
			if s[i+1] > s[i]+1 {
				l.out.WriteByte('-')
			}
			l.char(s[i+1])
		}
	}
	l.out.WriteByte(']')
	l.grow()
}

// expanding reports whether i must be spelled out under m.
func (l *lowerer) expanding(m modes) bool { return m.i && !l.baseI }

func (l *lowerer) literal(c rune, m modes, from int) {
	if l.expanding(m) {
		if o := l.folding().orbit(c); len(o) > 1 {
			l.class(runeset.Normalize(pairs(o)), false)
			return
		}
	}
	l.verbatim(from)
}

func pairs(cs []rune) []rune {
	r := make([]rune, 0, 2*len(cs))
	for _, c := range cs {
		r = append(r, c, c)
	}
	return r
}

func (l *lowerer) maxChar() rune {
	if l.unicode {
		return maxRune
	}
	return 0xFFFF
}

func (l *lowerer) disjunction(m modes, depth int) {
	for !l.eof() {
		from := l.pos
		switch c := l.src[l.pos]; c {
		case ')':
			if depth == 0 {
				l.fail("Unmatched ')'")
			}
			return
		case '(':
			l.group(m, depth)
		case '[':
			if l.vmode {
				l.vclassAtom(m)
			} else {
				l.classAtom(m)
			}
		case '\\':
			l.atomEscape(m)
		case '.':
			l.pos++
			switch {
			case m.s == l.baseS:
				l.out.WriteByte('.')
			case m.s:
				l.out.WriteString(`[\s\S]`)
			default:
				l.out.WriteString(`[^\n\r\u2028\u2029]`)
			}
		case '^':
			l.pos++
			switch {
			case m.m == l.baseM:
				l.out.WriteByte('^')
			case m.m:
				l.out.WriteString(`(?<![^\n\r\u2028\u2029])`)
			default:
				l.out.WriteString(`(?<![\s\S])`)
			}
		case '$':
			l.pos++
			switch {
			case m.m == l.baseM:
				l.out.WriteByte('$')
			case m.m:
				l.out.WriteString(`(?![^\n\r\u2028\u2029])`)
			default:
				l.out.WriteString(`(?![\s\S])`)
			}
		case '|', '*', '+', '?', '{', '}', ']':
			l.pos++
			l.out.WriteRune(c)
		default:
			l.pos++
			l.literal(c, m, from)
		}
		l.grow()
	}
	if depth > 0 {
		l.fail("Unterminated group")
	}
}

func (l *lowerer) group(m modes, depth int) {
	from := l.pos
	l.pos++ // (
	inner := m
	if l.peek(0) == '?' {
		switch l.peek(1) {
		case ':', '=', '!':
			l.pos += 2
			l.verbatim(from)
		case '<':
			if l.peek(2) == '=' || l.peek(2) == '!' {
				l.pos += 3
				l.verbatim(from)
				break
			}
			l.pos += 2
			for !l.eof() && l.src[l.pos] != '>' {
				l.pos++
			}
			if l.eof() {
				l.fail("Invalid capture group name")
			}
			l.pos++
			l.verbatim(from)
		default:
			l.pos++
			inner = l.modifiers(m)
			l.out.WriteString("(?:")
		}
	} else {
		l.out.WriteByte('(')
	}
	l.disjunction(inner, depth+1)
	if l.eof() {
		l.fail("Unterminated group")
	}
	l.pos++
	l.out.WriteByte(')')
}

// modifiers reads "ims-ims:" after "(?".
func (l *lowerer) modifiers(m modes) modes {
	var add, del [3]bool
	idx := map[rune]int{'i': 0, 'm': 1, 's': 2}
	removing, any := false, false
	for {
		if l.eof() {
			l.fail("Invalid group")
		}
		c := l.src[l.pos]
		l.pos++
		switch c {
		case ':':
			if removing && !any && !del[0] && !del[1] && !del[2] {
				l.fail("Invalid flag group")
			}
			set := func(k int, cur bool) bool {
				if add[k] {
					return true
				}
				if del[k] {
					return false
				}
				return cur
			}
			if del[0] && l.flagI {
				l.minusI = true
			}
			return modes{set(0, m.i), set(1, m.m), set(2, m.s)}
		case '-':
			if removing {
				l.fail("Invalid group")
			}
			removing = true
			any = add[0] || add[1] || add[2]
		case 'i', 'm', 's':
			k := idx[c]
			if add[k] || del[k] {
				l.fail("Repeated flag in flag group")
			}
			if removing {
				del[k] = true
			} else {
				add[k] = true
			}
		default:
			l.fail("Invalid group")
		}
	}
}

func isSyntaxChar(c rune) bool { return strings.ContainsRune(`^$\.*+?()[]{}|/`, c) }

func isHex(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (l *lowerer) hex(n int) (rune, bool) {
	if l.pos+n > len(l.src) {
		return 0, false
	}
	var v rune
	for _, c := range l.src[l.pos : l.pos+n] {
		if !isHex(c) {
			return 0, false
		}
		d, _ := strconv.ParseUint(string(c), 16, 8)
		v = v*16 + rune(d)
	}
	l.pos += n
	return v, true
}

// charEscape reads the rest of a CharacterEscape whose letter e was just
// read, as a character.
func (l *lowerer) charEscape(e rune, inClass bool) rune {
	switch e {
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'v':
		return '\v'
	case 'x':
		if v, ok := l.hex(2); ok {
			return v
		}
		if l.unicode {
			l.fail("Invalid escape")
		}
		return 'x'
	case 'u':
		if l.unicode && l.peek(0) == '{' {
			l.pos++
			start := l.pos
			for !l.eof() && isHex(l.src[l.pos]) {
				l.pos++
			}
			v, err := strconv.ParseUint(string(l.src[start:l.pos]), 16, 32)
			if err != nil || v > maxRune || l.peek(0) != '}' {
				l.fail("Invalid Unicode escape")
			}
			l.pos++
			return rune(v)
		}
		v, ok := l.hex(4)
		if !ok {
			if l.unicode {
				l.fail("Invalid Unicode escape")
			}
			return 'u'
		}
		if l.unicode && utf16.IsSurrogate(v) && v < 0xDC00 && l.peek(0) == '\\' && l.peek(1) == 'u' {
			save := l.pos
			l.pos += 2
			if w, ok := l.hex(4); ok && w >= 0xDC00 && w <= 0xDFFF {
				return utf16.DecodeRune(v, w)
			}
			l.pos = save
		}
		return v
	case '0':
		if l.unicode {
			if c := l.peek(0); c >= '0' && c <= '9' {
				l.fail("Invalid decimal escape")
			}
			return 0
		}
	}
	if e >= '0' && e <= '7' && !l.unicode {
		// legacy octal
		v := e - '0'
		for k := 0; k < 2; k++ {
			c := l.peek(0)
			if c < '0' || c > '7' || v*8+(c-'0') > 0377 {
				break
			}
			v = v*8 + (c - '0')
			l.pos++
		}
		return v
	}
	if l.unicode {
		if isSyntaxChar(e) || inClass && e == '-' {
			return e
		}
		l.fail("Invalid escape")
	}
	return e
}

var (
	digitSet = charset{'0', '9'}
	wordSet  = charset{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}
	// with u or v and i, the characters whose Canonicalize is a basic word
	// character count as word characters
	wordSetFold = charset{'0', '9', 'A', 'Z', '_', '_', 'a', 'z', 0x17F, 0x17F, 0x212A, 0x212A}
	spaceSet    = charset{9, 13, 0x20, 0x20, 0xA0, 0xA0, 0x1680, 0x1680, 0x2000, 0x200A,
		0x2028, 0x2029, 0x202F, 0x202F, 0x205F, 0x205F, 0x3000, 0x3000, 0xFEFF, 0xFEFF}
)

// escapeSet is the positive set of \d, \s, \w (any case of the letter).
func (l *lowerer) escapeSet(e rune, icase bool) (s charset, negated bool) {
	switch e {
	case 'd', 'D':
		s = digitSet
	case 's', 'S':
		s = spaceSet
	case 'w', 'W':
		s = wordSet
		if icase && l.unicode {
			s = wordSetFold
		}
	}
	return s, e == 'D' || e == 'S' || e == 'W'
}

var stringProperties = map[string]bool{
	"Basic_Emoji": true, "Emoji_Keycap_Sequence": true, "RGI_Emoji_Modifier_Sequence": true,
	"RGI_Emoji_Flag_Sequence": true, "RGI_Emoji_Tag_Sequence": true, "RGI_Emoji_ZWJ_Sequence": true,
	"RGI_Emoji": true,
}

// property reads "{name}" after \p or \P and returns its code points.
func (l *lowerer) property(inClass bool) charset {
	if l.peek(0) != '{' {
		l.fail("Invalid property name")
	}
	start := l.pos + 1
	end := start
	for end < len(l.src) && l.src[end] != '}' {
		end++
	}
	if end >= len(l.src) {
		l.fail("Invalid property name")
	}
	name := string(l.src[start:end])
	l.pos = end + 1
	if stringProperties[name] {
		if l.vmode {
			l.unsupported(fmt.Sprintf("the property of strings \\p{%s} is not supported on this engine", name))
		}
		l.fail("Invalid property name")
	}
	r, ok := jsparse.PropertyRanges(name)
	if !ok {
		if inClass {
			l.fail("Invalid property name in character class")
		}
		l.fail("Invalid property name")
	}
	return charset(r)
}

func (l *lowerer) boundary(negated bool) {
	const w = `[\w\u017F\u212A]`
	if negated {
		l.out.WriteString(`(?:(?<=` + w + `)(?=` + w + `)|(?<!` + w + `)(?!` + w + `))`)
		return
	}
	l.out.WriteString(`(?:(?<=` + w + `)(?!` + w + `)|(?<!` + w + `)(?=` + w + `))`)
}

func (l *lowerer) atomEscape(m modes) {
	from := l.pos
	l.pos++
	if l.eof() {
		l.fail("\\ at end of pattern")
	}
	e := l.src[l.pos]
	l.pos++
	exp := l.expanding(m)
	switch {
	case strings.ContainsRune("dDsS", e):
		l.verbatim(from)
	case e == 'w' || e == 'W':
		if exp && l.unicode {
			s, neg := l.escapeSet(e, true)
			l.class(s, neg)
			return
		}
		l.verbatim(from)
	case e == 'b' || e == 'B':
		if exp && l.unicode {
			l.boundary(e == 'B')
			return
		}
		l.verbatim(from)
	case (e == 'p' || e == 'P') && l.unicode:
		s := l.property(false)
		switch {
		case l.vmode && m.i && e == 'P':
			// v: the complement of the folded set, within the canonical chars
			s = l.vcomplement(l.folding().fold(s), true)
			if exp {
				s = l.folding().closure(s)
			}
			l.class(s, false)
		case exp:
			if e == 'P' {
				s = runeset.Complement(s, maxRune)
			}
			l.class(l.folding().closure(s), false)
		default:
			l.verbatim(from)
		}
	case e == 'k' && (l.unicode || l.names):
		if l.peek(0) != '<' {
			l.fail("Invalid named reference")
		}
		for !l.eof() && l.src[l.pos] != '>' {
			l.pos++
		}
		if l.eof() {
			l.fail("Invalid named reference")
		}
		l.pos++
		if exp {
			l.unsupported("a backreference inside a group that turns the i flag on is not supported on this engine")
		}
		l.verbatim(from)
	case e >= '1' && e <= '9':
		start := l.pos - 1
		for !l.eof() && l.src[l.pos] >= '0' && l.src[l.pos] <= '9' {
			l.pos++
		}
		n, _ := strconv.Atoi(string(l.src[start:l.pos]))
		if l.unicode || n <= l.captures {
			if exp {
				l.unsupported("a backreference inside a group that turns the i flag on is not supported on this engine")
			}
			l.verbatim(from)
			return
		}
		// legacy octal or identity escape
		l.pos = start + 1
		c := l.charEscape(e, false)
		l.literal(c, m, from)
	case e == 'c':
		if c := l.peek(0); c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			l.pos++
			l.verbatim(from)
			return
		}
		if l.unicode {
			l.fail("Invalid unicode escape")
		}
		// a backslash, then 'c' read as a literal
		l.pos = from + 1
		l.out.WriteString(`\\`)
	default:
		c := l.charEscape(e, false)
		l.literal(c, m, from)
	}
}

// classAtom handles a u-mode or legacy class.
func (l *lowerer) classAtom(m modes) {
	from := l.pos
	l.pos++ // [
	negated := false
	if l.peek(0) == '^' {
		negated = true
		l.pos++
	}
	var set []rune
	icaseWord := l.unicode && m.i
	for {
		if l.eof() {
			l.fail("Unterminated character class")
		}
		if l.src[l.pos] == ']' {
			l.pos++
			break
		}
		lo, loSet, isSet := l.classItem(icaseWord)
		if isSet {
			set = append(set, loSet...)
		}
		if l.peek(0) == '-' && l.peek(1) != ']' && l.peek(1) != -1 {
			l.pos++
			hi, hiSet, hiIsSet := l.classItem(icaseWord)
			if isSet || hiIsSet {
				if l.unicode {
					l.fail("Invalid character class")
				}
				// legacy: the two atoms and '-'
				if !isSet {
					set = append(set, lo, lo)
				}
				if hiIsSet {
					set = append(set, hiSet...)
				} else {
					set = append(set, hi, hi)
				}
				set = append(set, '-', '-')
				continue
			}
			if hi < lo {
				l.fail("Range out of order in character class")
			}
			set = append(set, lo, hi)
			continue
		}
		if !isSet {
			set = append(set, lo, lo)
		}
	}
	if !l.expanding(m) {
		l.verbatim(from)
		return
	}
	s := l.folding().closure(runeset.Normalize(set))
	if len(s) == 0 {
		if negated {
			l.out.WriteString("[^]")
		} else {
			l.out.WriteString("[]")
		}
		return
	}
	l.class(s, negated)
}

// classItem reads a ClassAtom of a u-mode or legacy class: a char or a set.
func (l *lowerer) classItem(icaseWord bool) (c rune, set charset, isSet bool) {
	c = l.src[l.pos]
	l.pos++
	if c != '\\' {
		return c, nil, false
	}
	if l.eof() {
		l.fail("\\ at end of pattern")
	}
	e := l.src[l.pos]
	l.pos++
	switch {
	case strings.ContainsRune("dDsSwW", e):
		s, neg := l.escapeSet(e, icaseWord)
		if neg {
			s = runeset.Complement(s, l.maxChar())
		}
		return 0, s, true
	case (e == 'p' || e == 'P') && l.unicode:
		s := l.property(true)
		if e == 'P' {
			s = runeset.Complement(s, maxRune)
		}
		return 0, s, true
	case e == 'b':
		return 8, nil, false
	case e == '-':
		return '-', nil, false
	case e == 'c':
		if x := l.peek(0); x >= 'a' && x <= 'z' || x >= 'A' && x <= 'Z' || !l.unicode && (x >= '0' && x <= '9' || x == '_') {
			l.pos++
			return x % 32, nil, false
		}
		if l.unicode {
			l.fail("Invalid class escape")
		}
		l.pos--
		return '\\', nil, false
	case e >= '1' && e <= '9' && l.unicode:
		l.fail("Invalid class escape")
	case (e == '8' || e == '9') && !l.unicode:
		return e, nil, false
	case e == 'k' && !l.unicode:
		return 'k', nil, false
	}
	return l.charEscape(e, true), nil, false
}

// vset is the value of a v-flag class: code points and strings (of other
// lengths than one; "" for the empty string).
type vset struct {
	cs   charset
	strs []string
}

func (a vset) union(b vset) vset {
	out := vset{cs: runeset.Union(a.cs, b.cs), strs: slices.Clone(a.strs)}
	for _, s := range b.strs {
		if !slices.Contains(out.strs, s) {
			out.strs = append(out.strs, s)
		}
	}
	return out
}

func (a vset) intersect(b vset) vset {
	out := vset{cs: runeset.Intersect(a.cs, b.cs)}
	for _, s := range a.strs {
		if slices.Contains(b.strs, s) {
			out.strs = append(out.strs, s)
		}
	}
	return out
}

func (a vset) subtract(b vset) vset {
	out := vset{cs: runeset.Subtract(a.cs, b.cs)}
	for _, s := range a.strs {
		if !slices.Contains(b.strs, s) {
			out.strs = append(out.strs, s)
		}
	}
	return out
}

// vcomplement is the v flag's CharacterComplement: under i, only the
// canonical characters.
func (l *lowerer) vcomplement(s charset, icase bool) charset {
	c := runeset.Complement(s, maxRune)
	if icase {
		c = runeset.Subtract(c, l.folding().nonCanonical())
	}
	return c
}

func (l *lowerer) hasPrefix(p string) bool {
	for k, c := range p {
		if l.peek(k) != c {
			return false
		}
	}
	return true
}

// vclassAtom lowers a v-flag class at l.pos.
func (l *lowerer) vclassAtom(m modes) {
	v := l.vclass(m.i)
	exp := l.expanding(m)
	cs := v.cs
	if exp {
		cs = l.folding().closure(cs)
	}
	if len(v.strs) == 0 {
		if len(cs) == 0 {
			l.out.WriteString("[]")
			return
		}
		l.class(cs, false)
		return
	}
	strs := slices.Clone(v.strs)
	slices.SortStableFunc(strs, func(a, b string) int {
		return utf8.RuneCountInString(b) - utf8.RuneCountInString(a)
	})
	l.out.WriteString("(?:")
	first := true
	sep := func() {
		if !first {
			l.out.WriteByte('|')
		}
		first = false
	}
	empty := false
	for _, s := range strs {
		if s == "" {
			empty = true
			continue
		}
		sep()
		for _, c := range s {
			if exp {
				l.class(l.folding().closure(single(c)), false)
			} else {
				l.char(c)
			}
		}
		l.grow()
	}
	if len(cs) > 0 {
		sep()
		l.class(cs, false)
	}
	if empty {
		sep()
	}
	l.out.WriteByte(')')
}

func (l *lowerer) vclass(icase bool) vset {
	l.pos++ // [
	negated := false
	if l.peek(0) == '^' {
		negated = true
		l.pos++
	}
	var res vset
	if l.eof() {
		l.fail("Unterminated character class")
	}
	if l.src[l.pos] != ']' {
		first, isRange := l.vterm(icase)
		switch {
		case l.hasPrefix("&&"), l.hasPrefix("--"):
			op := l.src[l.pos]
			if isRange {
				l.fail("Invalid set operation in character class")
			}
			res = first
			for l.hasPrefix(string([]rune{op, op})) {
				l.pos += 2
				if l.peek(0) == op {
					l.fail("Invalid character in character class")
				}
				t, r := l.vterm(icase)
				if r {
					l.fail("Invalid set operation in character class")
				}
				if op == '&' {
					res = res.intersect(t)
				} else {
					res = res.subtract(t)
				}
			}
			if l.peek(0) != ']' {
				l.fail("Invalid set operation in character class")
			}
		default:
			res = first
			for !l.eof() && l.src[l.pos] != ']' {
				if l.hasPrefix("&&") || l.hasPrefix("--") {
					l.fail("Invalid set operation in character class")
				}
				t, _ := l.vterm(icase)
				res = res.union(t)
			}
		}
	}
	if l.eof() {
		l.fail("Unterminated character class")
	}
	l.pos++ // ]
	if negated {
		if len(res.strs) > 0 {
			l.fail("Negated character class may contain strings")
		}
		res.cs = l.vcomplement(res.cs, icase)
	}
	return res
}

// vterm reads a ClassSetOperand or a ClassSetRange.
func (l *lowerer) vterm(icase bool) (v vset, isRange bool) {
	if l.eof() {
		l.fail("Unterminated character class")
	}
	foldSet := func(s charset) charset {
		if icase {
			return l.folding().fold(s)
		}
		return s
	}
	switch c := l.src[l.pos]; {
	case c == '[':
		return l.vclass(icase), false
	case c == '\\' && l.peek(1) == 'q':
		l.pos += 2
		if l.peek(0) != '{' {
			l.fail("Invalid escape")
		}
		l.pos++
		var cur []rune
		var single []rune
		flush := func() {
			if icase {
				for k, x := range cur {
					cur[k] = l.folding().fold(charset{x, x})[0]
				}
			}
			if len(cur) == 1 {
				single = append(single, cur[0], cur[0])
			} else if s := string(cur); !slices.Contains(v.strs, s) {
				v.strs = append(v.strs, s)
			}
			cur = nil
		}
		for {
			if l.eof() {
				l.fail("Unterminated character class")
			}
			switch l.src[l.pos] {
			case '}':
				l.pos++
				flush()
				v.cs = runeset.Normalize(single)
				return v, false
			case '|':
				l.pos++
				flush()
			default:
				cur = append(cur, l.vchar())
			}
		}
	case c == '\\' && strings.ContainsRune("dDsSwWpP", l.peek(1)):
		e := l.peek(1)
		l.pos += 2
		var s charset
		neg := false
		if e == 'p' || e == 'P' {
			s, neg = l.property(true), e == 'P'
		} else {
			s, neg = l.escapeSet(e, icase)
		}
		s = foldSet(s)
		if neg {
			s = l.vcomplement(s, icase)
		}
		return vset{cs: s}, false
	}
	lo := l.vchar()
	if l.peek(0) == '-' && l.peek(1) != '-' {
		l.pos++
		hi := l.vchar()
		if hi < lo {
			l.fail("Range out of order in character class")
		}
		return vset{cs: foldSet(charset{lo, hi})}, true
	}
	return vset{cs: foldSet(charset{lo, lo})}, false
}

// vchar reads a ClassSetCharacter.
func (l *lowerer) vchar() rune {
	if l.eof() {
		l.fail("Unterminated character class")
	}
	c := l.src[l.pos]
	l.pos++
	if c == '\\' {
		if l.eof() {
			l.fail("\\ at end of pattern")
		}
		e := l.src[l.pos]
		l.pos++
		switch {
		case strings.ContainsRune("&-!#%,:;<=>@`~", e):
			return e
		case e == 'b':
			return 8
		case e == 'c':
			if x := l.peek(0); x >= 'a' && x <= 'z' || x >= 'A' && x <= 'Z' {
				l.pos++
				return x % 32
			}
			l.fail("Invalid class escape")
		case e >= '1' && e <= '9':
			l.fail("Invalid class escape")
		}
		return l.charEscape(e, true)
	}
	if strings.ContainsRune("()[]{}/-|", c) {
		l.fail("Invalid character in character class")
	}
	if strings.ContainsRune("&!#$%*+,.:;<=>?@^`~", c) && l.peek(0) == c {
		l.fail("Invalid set operation in character class")
	}
	return c
}
