package codemode

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/codemode/codemode/tools"
)

// One-line TypeScript signatures, the form the catalog and error messages
// show a tool in:
//
//	ticker(args: {symbol: string}): Promise<{symbol: string; price: number; currency: string}>
//
// Properties keep the order their schema lists them in (required ones
// first), because authors order them to be read; objects nested deeper than
// sigMaxDepth read as `object`, and a tool without an output schema
// resolves to `unknown`. Every line is a valid TypeScript method signature
// (FuzzSignatureLine). Declarations (declare.go) are the full form.

// sigMaxDepth is how deep object types are spelled out: the arguments
// object, its properties' objects, and theirs.
const sigMaxDepth = 3

// sigMaxEnum bounds a literal union; a longer enum reads as its base type.
const sigMaxEnum = 8

// signatureLine is name's one-line signature: `name(args: {…}): Promise<…>`,
// name quoted when it is not an identifier.
func signatureLine(name string, in tools.Info) string {
	return propKey(name) + signatureTail(in)
}

// signatureTail is the signature without the name: `(args: {…}): Promise<…>`.
func signatureTail(in tools.Info) string {
	args := "{}"
	if len(in.InputSchema) > 0 {
		if t := inlineType(in.InputSchema); t != "unknown" && t != "object" {
			args = t
		}
	}
	result := "unknown"
	if len(in.OutputSchema) > 0 {
		result = inlineType(in.OutputSchema)
	}
	return "(args: " + args + "): Promise<" + result + ">"
}

// inlineType renders a JSON Schema document as a one-line TypeScript type;
// what it cannot express is `unknown`.
func inlineType(schema json.RawMessage) string {
	root, err := parseNode(schema)
	if err != nil {
		return "unknown"
	}
	g := &sigGen{root: root, seen: map[string]bool{}}
	return g.typ(root, 0)
}

type sigGen struct {
	root *node
	seen map[string]bool // $refs being expanded: a cycle reads as object
}

func (g *sigGen) typ(n *node, depth int) string {
	if n == nil {
		return "unknown"
	}
	switch n.kind {
	case kindBool:
		if n.raw == "false" {
			return "never"
		}
		return "unknown"
	case kindObject:
	default:
		return "unknown"
	}
	if ref, ok := n.field("$ref").stringValue(); ok {
		if g.seen[ref] || ref == "#" {
			return "object"
		}
		target := g.resolve(ref)
		if target == nil {
			return "unknown"
		}
		g.seen[ref] = true
		t := g.typ(target, depth)
		delete(g.seen, ref)
		return t
	}
	if c := n.field("const"); c != nil {
		return c.literal()
	}
	if e := n.field("enum"); e != nil && e.kind == kindArray && len(e.items) > 0 {
		if len(e.items) > sigMaxEnum {
			return baseOf(e.items)
		}
		lits := make([]string, len(e.items))
		for i, v := range e.items {
			lits[i] = v.literal()
		}
		return strings.Join(dedupe(lits), " | ")
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts := n.field(key); alts != nil && alts.kind == kindArray && len(alts.items) > 0 {
			ts := make([]string, len(alts.items))
			for i, a := range alts.items {
				ts[i] = g.typ(a, depth)
			}
			return union(ts)
		}
	}
	if all := n.field("allOf"); all != nil && all.kind == kindArray && len(all.items) > 0 {
		if len(all.items) == 1 {
			return g.typ(all.items[0], depth)
		}
		ts := make([]string, len(all.items))
		for i, a := range all.items {
			ts[i] = paren(g.typ(a, depth))
		}
		return strings.Join(ts, " & ")
	}
	var types []string
	switch t := n.field("type"); {
	case t == nil:
	case t.kind == kindString:
		types = []string{t.str}
	case t.kind == kindArray:
		for _, x := range t.items {
			if x.kind == kindString {
				types = append(types, x.str)
			}
		}
	}
	if len(types) == 0 {
		switch {
		case n.field("properties") != nil:
			types = []string{"object"}
		case n.field("items") != nil || n.field("prefixItems") != nil:
			types = []string{"array"}
		default:
			return "unknown"
		}
	}
	ts := make([]string, 0, len(types))
	for _, t := range types {
		switch t {
		case "string", "boolean", "null":
			ts = append(ts, t)
		case "number", "integer":
			ts = append(ts, "number")
		case "array":
			ts = append(ts, g.array(n, depth))
		case "object":
			ts = append(ts, g.object(n, depth))
		default:
			ts = append(ts, "unknown")
		}
	}
	return union(ts)
}

func (g *sigGen) object(n *node, depth int) string {
	props := n.field("properties")
	if depth >= sigMaxDepth {
		return "object"
	}
	if props == nil || props.kind != kindObject || len(props.keys) == 0 {
		if ap := n.field("additionalProperties"); ap != nil && ap.kind == kindObject {
			return "Record<string, " + g.typ(ap, depth+1) + ">"
		}
		return "object"
	}
	req := map[string]bool{}
	if r := n.field("required"); r != nil && r.kind == kindArray {
		for _, x := range r.items {
			if x.kind == kindString {
				req[x.str] = true
			}
		}
	}
	parts := make([]string, 0, len(props.keys))
	for _, pass := range []bool{true, false} { // required first, each in schema order
		for _, k := range props.keys {
			if req[k] != pass {
				continue
			}
			opt := "?"
			if pass {
				opt = ""
			}
			parts = append(parts, propKey(k)+opt+": "+g.typ(props.vals[k], depth+1))
		}
	}
	return "{" + strings.Join(parts, "; ") + "}"
}

func (g *sigGen) array(n *node, depth int) string {
	tuple := n.field("prefixItems")
	if items := n.field("items"); tuple == nil && items != nil && items.kind == kindArray {
		tuple = items // draft-07 tuples
	}
	if tuple != nil && tuple.kind == kindArray && len(tuple.items) > 0 {
		ts := make([]string, len(tuple.items))
		for i, x := range tuple.items {
			ts[i] = g.typ(x, depth+1)
		}
		return "[" + strings.Join(ts, ", ") + "]"
	}
	items := n.field("items")
	if items == nil {
		return "unknown[]"
	}
	return paren(g.typ(items, depth+1)) + "[]"
}

func (g *sigGen) resolve(ref string) *node {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	cur := g.root
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		cur = cur.field(part)
		if cur == nil {
			return nil
		}
	}
	return cur
}

// union joins alternatives, dropping repeats; unknown absorbs the rest.
func union(ts []string) string {
	ts = dedupe(ts)
	for _, t := range ts {
		if t == "unknown" {
			return "unknown"
		}
	}
	return strings.Join(ts, " | ")
}

// paren wraps a union or intersection, for use as an array element or an
// intersection's operand.
func paren(t string) string {
	depth := 0
	for _, r := range t {
		switch r {
		case '{', '(', '[', '<':
			depth++
		case '}', ')', ']', '>':
			depth--
		case '|', '&':
			if depth == 0 {
				return "(" + t + ")"
			}
		}
	}
	return t
}

// baseOf is the TypeScript type of a long enum's values.
func baseOf(vals []*node) string {
	var ts []string
	for _, v := range vals {
		switch v.kind {
		case kindString:
			ts = append(ts, "string")
		case kindNumber:
			ts = append(ts, "number")
		case kindBool:
			ts = append(ts, "boolean")
		case kindNull:
			ts = append(ts, "null")
		default:
			ts = append(ts, "unknown")
		}
	}
	return union(ts)
}

// firstSentence is the first sentence of a description, on one line, at
// most max bytes (cut at a word, with an ellipsis).
func firstSentence(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && (s[i+1] == ' ' || s[i+1] == '\t') && !abbreviation(s[:i]) {
			s = s[:i+1]
			break
		}
	}
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max], ' ')
	if cut < max/2 {
		cut = max
		for cut > 0 && s[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}

// abbreviation reports whether s ends in a word whose period does not end
// a sentence (e.g., i.e., etc.).
func abbreviation(s string) bool {
	w := s[strings.LastIndexAny(s, " (")+1:]
	switch strings.ToLower(w) {
	case "e.g", "i.e", "etc", "vs", "approx", "incl", "no", "cf":
		return true
	}
	return len(w) == 1 // an initial
}

// node is a JSON value that keeps the order of object keys (json.Unmarshal
// into a map loses it, and schemas list properties in reading order).
type node struct {
	kind  nodeKind
	str   string // a string's value
	raw   string // a number's, boolean's or null's text
	keys  []string
	vals  map[string]*node
	items []*node
}

type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// field is the value of key k of an object node, or nil.
func (n *node) field(k string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	return n.vals[k]
}

func (n *node) stringValue() (string, bool) {
	if n == nil || n.kind != kindString {
		return "", false
	}
	return n.str, true
}

// literal is a scalar as a TypeScript literal type; objects and arrays are
// unknown (enough for const and enum).
func (n *node) literal() string {
	switch n.kind {
	case kindString:
		return jsonQuote(n.str)
	case kindNumber, kindBool, kindNull:
		return n.raw
	}
	return "unknown"
}

// parseNode decodes JSON into nodes. Duplicate keys keep the last value, as
// encoding/json does, at the position of the first.
func parseNode(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := decodeNode(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("trailing data after the schema")
	}
	return n, nil
}

// maxNodeDepth bounds how deeply parseNode recurses: no schema a person
// reads nests deeper, and a server must not be able to overflow our stack.
const maxNodeDepth = 128

func decodeNode(dec *json.Decoder, depth int) (*node, error) {
	if depth > maxNodeDepth {
		return nil, errors.New("the schema nests too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			n := &node{kind: kindArray}
			for dec.More() {
				v, err := decodeNode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token() // ]
			return n, err
		}
		n := &node{kind: kindObject, vals: map[string]*node{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			v, err := decodeNode(dec, depth+1)
			if err != nil {
				return nil, err
			}
			if _, dup := n.vals[k]; !dup {
				n.keys = append(n.keys, k)
			}
			n.vals[k] = v
		}
		_, err := dec.Token() // }
		return n, err
	case string:
		return &node{kind: kindString, str: t}, nil
	case json.Number:
		return &node{kind: kindNumber, raw: t.String()}, nil
	case bool:
		if t {
			return &node{kind: kindBool, raw: "true"}, nil
		}
		return &node{kind: kindBool, raw: "false"}, nil
	}
	return &node{kind: kindNull, raw: "null"}, nil
}
