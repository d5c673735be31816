// Package redact replaces secrets in JSON documents by a marker before they
// are written anywhere that outlives the call: fixture recordings today,
// the audit trail later. One set of rules serves both, so what is hidden
// from one is hidden from the other.
//
// # Rules
//
// A rule is a key name or a JSON pointer ([RFC 6901]):
//
//   - a key name ("token", "apiKey") matches a member of that name in any
//     object at any depth, compared case-insensitively ("Authorization"
//     and "authorization" are one rule);
//   - a pointer ("/auth/secret", "/items/0/pin") starts with "/" and
//     matches the one value at that path from the document's root, with
//     "~1" for "/" and "~0" for "~" in a key, as RFC 6901 spells them.
//
// A matched value, whatever its type (a string, an object, an array), is
// replaced by the string [Marker]. [Default] holds [DefaultKeys].
//
// A string whose text is itself a JSON object or array (tools often send
// their data as JSON text) is redacted as if that value stood in its
// place: key rules apply inside it, and pointers continue into it
// ("/content/0/text/user/password"). The string is re-encoded, compactly,
// only when something inside it was redacted.
//
// # Secrets
//
// [Secrets] are literal values (the environment and header values of a
// configuration) that must appear nowhere, whatever key holds them: every
// occurrence inside any string, or key, of a document is replaced by the
// marker. Values shorter than [MinSecretLen] are ignored: replacing "1" or
// "true" everywhere would wreck the document and hide nothing.
//
// # Output
//
// [Rules.Apply] and [Secrets.Apply] return compact JSON with object members
// in their original order, numbers exactly as written, and strings
// re-encoded without HTML escaping. A document that is not valid JSON
// comes back as the marker alone (a JSON string): what cannot be read
// cannot be shown to be clean (fail closed).
//
// [RFC 6901]: https://www.rfc-editor.org/rfc/rfc6901
package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Marker is what a redacted value becomes.
const Marker = "[REDACTED]"

// DefaultKeys are the key names [Default] redacts.
var DefaultKeys = []string{"password", "token", "authorization", "apiKey"}

// MinSecretLen is the shortest literal [NewSecrets] keeps.
const MinSecretLen = 8

// Rules is a parsed list of rules. The zero value and nil redact nothing.
// A Rules is immutable and safe for concurrent use.
type Rules struct {
	entries  []string
	keys     map[string]bool // lower-cased key names
	pointers [][]string      // decoded reference tokens
}

// Default returns the rules for [DefaultKeys].
func Default() *Rules {
	r, _ := New(DefaultKeys)
	return r
}

// New parses entries, each a key name or a JSON pointer. The error names
// the first entry that is neither (an empty string, a pointer with a "~"
// not followed by 0 or 1).
func New(entries []string) (*Rules, error) {
	r := &Rules{keys: map[string]bool{}}
	for i, e := range entries {
		if err := Check(e); err != nil {
			return nil, fmt.Errorf("rule %d: %w", i, err)
		}
		r.entries = append(r.entries, e)
		if !strings.HasPrefix(e, "/") {
			r.keys[strings.ToLower(e)] = true
			continue
		}
		toks, _ := parsePointer(e)
		r.pointers = append(r.pointers, toks)
	}
	return r, nil
}

// Check reports why entry is not a rule, or nil.
func Check(entry string) error {
	if entry == "" {
		return errors.New("an empty rule: want a key name or a JSON pointer such as /auth/token")
	}
	if strings.HasPrefix(entry, "/") {
		if _, err := parsePointer(entry); err != nil {
			return err
		}
	}
	return nil
}

func parsePointer(p string) ([]string, error) {
	parts := strings.Split(p[1:], "/")
	for i, part := range parts {
		for j := 0; j < len(part); j++ {
			if part[j] == '~' && (j+1 == len(part) || part[j+1] != '0' && part[j+1] != '1') {
				return nil, fmt.Errorf("%q is not a JSON pointer: \"~\" must be followed by 0 or 1 (RFC 6901)", p)
			}
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// Entries returns the rules as given to [New].
func (r *Rules) Entries() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.entries)
}

// Empty reports whether r redacts nothing.
func (r *Rules) Empty() bool { return r == nil || len(r.keys) == 0 && len(r.pointers) == 0 }

// Apply returns doc with every value the rules match replaced by
// [Marker]. See the package documentation for the output's form.
func (r *Rules) Apply(doc json.RawMessage) json.RawMessage {
	out, _ := r.Redact(doc)
	return out
}

// Redact is [Rules.Apply] that also counts the values it replaced; an
// unreadable document counts as one.
func (r *Rules) Redact(doc json.RawMessage) (json.RawMessage, int) {
	if r.Empty() {
		return doc, 0
	}
	return walk(doc, r, nil)
}

// matchKey reports whether the member key at path (the path includes key)
// is redacted.
func (r *Rules) matchKey(path []string) bool {
	if r == nil {
		return false
	}
	if r.keys[strings.ToLower(path[len(path)-1])] {
		return true
	}
	return r.matchPointer(path)
}

func (r *Rules) matchPointer(path []string) bool {
	if r == nil {
		return false
	}
	for _, p := range r.pointers {
		if slices.Equal(p, path) {
			return true
		}
	}
	return false
}

// Secrets replaces literal values wherever they occur. The zero value and
// nil replace nothing. A Secrets is immutable and safe for concurrent use.
type Secrets struct{ values []string }

// NewSecrets keeps the values at least [MinSecretLen] bytes long. A value
// made of several words ("Bearer abc…", as in an Authorization header) also
// contributes each long enough word, so the token is hidden even where it
// appears without its scheme.
func NewSecrets(values ...string) *Secrets {
	s := &Secrets{}
	add := func(v string) {
		if len(v) >= MinSecretLen && !slices.Contains(s.values, v) {
			s.values = append(s.values, v)
		}
	}
	for _, v := range values {
		add(v)
		if f := strings.Fields(v); len(f) > 1 {
			for _, w := range f {
				add(w)
			}
		}
	}
	// Longest first, so a value that contains another is replaced whole.
	slices.SortStableFunc(s.values, func(a, b string) int { return len(b) - len(a) })
	return s
}

// Empty reports whether s replaces nothing.
func (s *Secrets) Empty() bool { return s == nil || len(s.values) == 0 }

// Apply returns doc with every occurrence of a secret inside a string or
// key replaced by [Marker].
func (s *Secrets) Apply(doc json.RawMessage) json.RawMessage {
	if s.Empty() {
		return doc
	}
	out, _ := walk(doc, nil, s)
	return out
}

// String returns v with every occurrence of a secret replaced by [Marker].
func (s *Secrets) String(v string) string {
	if s == nil {
		return v
	}
	for _, secret := range s.values {
		if strings.Contains(v, secret) {
			v = strings.ReplaceAll(v, secret, Marker)
		}
	}
	return v
}

// markerJSON is Marker as a JSON string.
var markerJSON = json.RawMessage(strconv.Quote(Marker))

// walk rewrites doc token by token: members matched by rules become the
// marker, and strings and keys pass through secrets. It returns the number
// of values rules replaced (plus one if doc is unreadable, which then
// becomes the marker).
func walk(doc json.RawMessage, rules *Rules, secrets *Secrets) (json.RawMessage, int) {
	w := &walker{dec: json.NewDecoder(bytes.NewReader(doc)), rules: rules, secrets: secrets}
	w.dec.UseNumber()
	w.enc = json.NewEncoder(&w.str)
	w.enc.SetEscapeHTML(false)
	if err := w.value(nil); err != nil {
		return slices.Clone(markerJSON), 1
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return slices.Clone(markerJSON), 1
	}
	return w.out.Bytes(), w.n
}

type walker struct {
	dec     *json.Decoder
	rules   *Rules
	secrets *Secrets
	out     bytes.Buffer
	str     bytes.Buffer // scratch for string encoding
	enc     *json.Encoder
	n       int
}

// member writes the next value at path at, or the marker in its place when
// a rule matched it (the value is read and dropped).
func (w *walker) member(at []string, redacted bool) error {
	if !redacted {
		return w.value(at)
	}
	var skip json.RawMessage
	if err := w.dec.Decode(&skip); err != nil {
		return err
	}
	w.out.Write(markerJSON)
	w.n++
	return nil
}

func (w *walker) value(path []string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			w.out.WriteByte('{')
			for first := true; w.dec.More(); first = false {
				if !first {
					w.out.WriteByte(',')
				}
				kt, err := w.dec.Token()
				if err != nil {
					return err
				}
				key, ok := kt.(string)
				if !ok {
					return errors.New("redact: object key is not a string")
				}
				w.writeString(key)
				w.out.WriteByte(':')
				at := append(path[:len(path):len(path)], key)
				if err := w.member(at, w.rules.matchKey(at)); err != nil {
					return err
				}
			}
			if _, err := w.dec.Token(); err != nil {
				return err
			}
			w.out.WriteByte('}')
		case '[':
			w.out.WriteByte('[')
			for i := 0; w.dec.More(); i++ {
				if i > 0 {
					w.out.WriteByte(',')
				}
				at := append(path[:len(path):len(path)], strconv.Itoa(i))
				if err := w.member(at, w.rules.matchPointer(at)); err != nil {
					return err
				}
			}
			if _, err := w.dec.Token(); err != nil {
				return err
			}
			w.out.WriteByte(']')
		default:
			return fmt.Errorf("redact: unexpected %v", t)
		}
	case string:
		w.writeString(w.inner(t, path))
	case json.Number:
		w.out.WriteString(t.String())
	case bool:
		w.out.WriteString(strconv.FormatBool(t))
	case nil:
		w.out.WriteString("null")
	}
	return nil
}

// inner redacts s as the JSON value it holds, if it holds an object or an
// array and the rules match something inside; otherwise it returns s.
func (w *walker) inner(s string, path []string) string {
	if w.rules.Empty() {
		return s
	}
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || t[0] != '{' && t[0] != '[' || !json.Valid([]byte(t)) {
		return s
	}
	in := &walker{dec: json.NewDecoder(strings.NewReader(t)), rules: w.rules, enc: nil}
	in.dec.UseNumber()
	in.enc = json.NewEncoder(&in.str)
	in.enc.SetEscapeHTML(false)
	if err := in.value(path); err != nil || in.n == 0 {
		return s
	}
	w.n += in.n
	return in.out.String()
}

func (w *walker) writeString(s string) {
	s = w.secrets.String(s)
	w.str.Reset()
	_ = w.enc.Encode(s) // a string always encodes
	w.out.Write(bytes.TrimRight(w.str.Bytes(), "\n"))
}
