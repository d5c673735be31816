package codemode

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/codemode/codemode/tools"
)

// Declarations renders TypeScript declarations for infos: one argument type
// and one result type per tool (from the input and output JSON Schemas,
// descriptions as doc comments), and a `tools` declaration with the exact
// call syntax. The output is valid TypeScript for any schema: what the
// generator cannot express precisely becomes `unknown`.
func Declarations(infos []tools.Info) string {
	var b strings.Builder
	used := map[string]bool{}
	var members []string
	for _, in := range infos {
		base := uniqueName(typeName(in.Name), used)
		g := newTSGen(base)
		g.root(in.InputSchema, base+"Args", "{}")
		if len(in.OutputSchema) > 0 {
			g.root(in.OutputSchema, base+"Result", "unknown")
		} else {
			g.emit(base+"Result", "unknown /* JSON text, parsed */", "The tool declares no output schema: a call resolves to its structured content if it sends one, else to its text parsed as JSON when that is a JSON object or array, else to the text (a string).")
		}
		fmt.Fprintf(&b, "// %s\n// call: %s\n", jsonQuote(in.Name), callExample(in))
		b.WriteString(g.out.String())
		members = append(members, docComment(in.Description, "  ")+fmt.Sprintf("  %s(args: %sArgs): Promise<%sResult>;\n", jsonQuote(in.Name), base, base))
		b.WriteByte('\n')
	}
	b.WriteString("declare const tools: {\n")
	for _, m := range members {
		b.WriteString(m)
	}
	b.WriteString("};\n")
	return b.String()
}

// callExample is the exact call syntax: await tools["name"]({ a, b }) with
// the required arguments as shorthand properties.
func callExample(in tools.Info) string {
	var s struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(in.InputSchema, &s)
	var parts []string
	for _, r := range s.Required {
		if isIdent(r) {
			parts = append(parts, r)
		} else {
			parts = append(parts, jsonQuote(r)+": "+"/* "+r+" */ undefined")
		}
	}
	args := "{}"
	if len(parts) > 0 {
		args = "{ " + strings.Join(parts, ", ") + " }"
	}
	return fmt.Sprintf("await tools[%s](%s)", jsonQuote(in.Name), args)
}

// signature is a one-line form for search hits:
// await tools["x"]({ a: string, b?: number }).
func signature(in tools.Info) string {
	var s map[string]any
	_ = json.Unmarshal(in.InputSchema, &s)
	props, _ := s["properties"].(map[string]any)
	req := requiredSet(s)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, k := range names {
		opt := "?"
		if req[k] {
			opt = ""
		}
		parts = append(parts, propKey(k)+opt+": "+shortType(props[k]))
	}
	args := "{}"
	if len(parts) > 0 {
		args = "{ " + strings.Join(parts, ", ") + " }"
	}
	return fmt.Sprintf("await tools[%s](%s)", jsonQuote(in.Name), args)
}

func shortType(s any) string {
	m, ok := s.(map[string]any)
	if !ok {
		return "unknown"
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 && len(e) <= 6 {
		var lits []string
		for _, v := range e {
			lits = append(lits, literal(v))
		}
		return strings.Join(lits, " | ")
	}
	switch t := m["type"].(type) {
	case string:
		switch t {
		case "integer":
			return "number"
		case "array":
			return shortType(m["items"]) + "[]"
		}
		return t
	case []any:
		var ts []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				if s == "integer" {
					s = "number"
				}
				ts = append(ts, s)
			}
		}
		return strings.Join(ts, " | ")
	}
	if _, ok := m["properties"]; ok {
		return "object"
	}
	return "unknown"
}

// tsGen turns one JSON Schema document into TypeScript type aliases.
type tsGen struct {
	prefix string
	doc    map[string]any
	out    strings.Builder
	named  map[string]string // $ref → alias name
	queue  []string          // refs to emit
	used   map[string]bool
}

func newTSGen(prefix string) *tsGen {
	return &tsGen{prefix: prefix, named: map[string]string{}, used: map[string]bool{}}
}

// root emits `type name = …` for the schema document, plus aliases for the
// $defs it references.
func (g *tsGen) root(schema json.RawMessage, name, fallback string) {
	var doc any
	if err := json.Unmarshal(schema, &doc); err != nil {
		g.emit(name, fallback, "")
		return
	}
	g.doc, _ = doc.(map[string]any)
	g.named = map[string]string{}
	g.queue = nil
	desc, _ := g.doc["description"].(string)
	g.emit(name, g.typeOf(doc, "", 0), desc)
	for len(g.queue) > 0 {
		ref := g.queue[0]
		g.queue = g.queue[1:]
		target := g.resolve(ref)
		d, _ := target.(map[string]any)
		ds, _ := d["description"].(string)
		g.emit(g.named[ref], g.typeOf(target, "", 0), ds)
	}
}

func (g *tsGen) emit(name, typ, desc string) {
	g.out.WriteString(docComment(desc, ""))
	fmt.Fprintf(&g.out, "type %s = %s;\n", name, typ)
}

func (g *tsGen) resolve(ref string) any {
	if !strings.HasPrefix(ref, "#/") {
		return true
	}
	var cur any = g.doc
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return true
		}
		cur = m[part]
	}
	if cur == nil {
		return true
	}
	return cur
}

const maxDepth = 12

func (g *tsGen) typeOf(s any, indent string, depth int) string {
	if depth > maxDepth {
		return "unknown"
	}
	switch v := s.(type) {
	case bool:
		if v {
			return "unknown"
		}
		return "never"
	case map[string]any:
		return g.objectSchema(v, indent, depth)
	}
	return "unknown"
}

func (g *tsGen) objectSchema(m map[string]any, indent string, depth int) string {
	if ref, ok := m["$ref"].(string); ok {
		if ref == "#" {
			return "unknown"
		}
		name, ok := g.named[ref]
		if !ok {
			last := ref[strings.LastIndex(ref, "/")+1:]
			name = uniqueName(g.prefix+typeName(last), g.used)
			g.named[ref] = name
			g.queue = append(g.queue, ref)
		}
		return name
	}
	if c, ok := m["const"]; ok {
		return literal(c)
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		var lits []string
		for _, v := range e {
			lits = append(lits, literal(v))
		}
		return strings.Join(lits, " | ")
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := m[key].([]any); ok && len(alts) > 0 {
			var ts []string
			for _, a := range alts {
				ts = append(ts, "("+g.typeOf(a, indent, depth+1)+")")
			}
			return strings.Join(dedupe(ts), " | ")
		}
	}
	if all, ok := m["allOf"].([]any); ok && len(all) > 0 {
		var ts []string
		for _, a := range all {
			ts = append(ts, "("+g.typeOf(a, indent, depth+1)+")")
		}
		return strings.Join(ts, " & ")
	}
	var types []string
	switch t := m["type"].(type) {
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				types = append(types, s)
			}
		}
	}
	if len(types) == 0 {
		if _, ok := m["properties"]; ok {
			types = []string{"object"}
		} else if _, ok := m["items"]; ok {
			types = []string{"array"}
		} else {
			return "unknown"
		}
	}
	var ts []string
	for _, t := range types {
		switch t {
		case "string", "boolean", "null":
			ts = append(ts, t)
		case "number", "integer":
			ts = append(ts, "number")
		case "array":
			ts = append(ts, g.arrayType(m, indent, depth))
		case "object":
			ts = append(ts, g.objectType(m, indent, depth))
		default:
			ts = append(ts, "unknown")
		}
	}
	return strings.Join(dedupe(ts), " | ")
}

func (g *tsGen) arrayType(m map[string]any, indent string, depth int) string {
	if pre, ok := m["prefixItems"].([]any); ok && len(pre) > 0 {
		var ts []string
		for _, p := range pre {
			ts = append(ts, g.typeOf(p, indent, depth+1))
		}
		return "[" + strings.Join(ts, ", ") + "]"
	}
	if items, ok := m["items"]; ok {
		if arr, ok := items.([]any); ok { // draft-07 tuple form
			var ts []string
			for _, p := range arr {
				ts = append(ts, g.typeOf(p, indent, depth+1))
			}
			return "[" + strings.Join(ts, ", ") + "]"
		}
		return "Array<" + g.typeOf(items, indent, depth+1) + ">"
	}
	return "unknown[]"
}

func (g *tsGen) objectType(m map[string]any, indent string, depth int) string {
	props, _ := m["properties"].(map[string]any)
	req := requiredSet(m)
	inner := indent + "  "
	var b strings.Builder
	b.WriteString("{\n")
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ps, _ := props[k].(map[string]any)
		desc, _ := ps["description"].(string)
		b.WriteString(docComment(desc, inner))
		opt := "?"
		if req[k] {
			opt = ""
		}
		fmt.Fprintf(&b, "%s%s%s: %s;\n", inner, propKey(k), opt, g.typeOf(props[k], inner, depth+1))
	}
	switch ap := m["additionalProperties"].(type) {
	case map[string]any:
		// An index signature must admit the named properties' types too, so
		// it is unknown unless there are none.
		t := "unknown"
		if len(props) == 0 {
			t = g.typeOf(ap, inner, depth+1)
		}
		fmt.Fprintf(&b, "%s[key: string]: %s;\n", inner, t)
	case bool:
		if ap && len(props) == 0 {
			fmt.Fprintf(&b, "%s[key: string]: unknown;\n", inner)
		}
	case nil:
		if len(props) == 0 {
			fmt.Fprintf(&b, "%s[key: string]: unknown;\n", inner)
		}
	}
	b.WriteString(indent + "}")
	return b.String()
}

func requiredSet(m map[string]any) map[string]bool {
	req := map[string]bool{}
	if r, ok := m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				req[s] = true
			}
		}
	}
	return req
}

func literal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "unknown"
	}
	switch v.(type) {
	case map[string]any, []any:
		return "unknown" // object/array constants: keep it simple and valid
	}
	return string(b)
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

var identRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func isIdent(s string) bool { return identRe.MatchString(s) }

func propKey(k string) string {
	if isIdent(k) {
		return k
	}
	return jsonQuote(k)
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// typeName makes a PascalCase identifier of a tool or definition name.
func typeName(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
			if up {
				r -= 'a' - 'A'
			}
			b.WriteRune(r)
			up = false
		case r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			up = false
		default:
			up = true
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "T" + out
	}
	return out
}

func uniqueName(base string, used map[string]bool) string {
	name := base
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	used[name] = true
	return name
}

func docComment(desc, indent string) string {
	desc = strings.TrimSpace(desc)
	if desc == "" {
		return ""
	}
	desc = strings.ReplaceAll(desc, "*/", "*\\/")
	lines := strings.Split(desc, "\n")
	if len(lines) == 1 {
		return indent + "/** " + lines[0] + " */\n"
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for _, l := range lines {
		b.WriteString(indent + " * " + strings.TrimRight(l, " \t\r") + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}
