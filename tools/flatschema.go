package tools

import (
	"encoding/json"
	"math"
)

// flatSchema is a fast path for the commonest input schema: an object whose
// properties each have a primitive type (string, boolean, number, integer),
// possibly bounded (minimum, maximum), with a required list and
// additionalProperties false or absent — code_run's own, and most tools'
// with a few scalar arguments. It only ever says "valid": when it cannot
// tell (a value it does not expect, a missing required property, a
// property of the wrong type, an extra one), the full validator decides, so
// errors read exactly as before. It saves the full validator's walk, and
// the goroutine stack growth that walk's recursion costs, on every call.
type flatSchema struct {
	props    map[string]flatProp
	required []string
	closed   bool // additionalProperties: false
}

type flatProp struct {
	kind     string // "string", "boolean", "number", "integer", or "" for any value
	min, max float64
}

// annotation reports whether key is a keyword that constrains nothing.
func annotation(key string) bool {
	switch key {
	case "$schema", "$id", "$comment", "title", "description", "examples", "default", "deprecated", "readOnly", "writeOnly":
		return true
	}
	return false
}

// compileFlat returns the fast path for schema, or nil when schema is not
// of the flat kind.
func compileFlat(schema json.RawMessage) *flatSchema {
	var m map[string]json.RawMessage
	if json.Unmarshal(schema, &m) != nil || string(m["type"]) != `"object"` {
		return nil
	}
	f := &flatSchema{props: map[string]flatProp{}}
	for k, v := range m {
		switch {
		case k == "type" || annotation(k):
		case k == "properties":
			var props map[string]map[string]json.RawMessage
			if json.Unmarshal(v, &props) != nil {
				return nil
			}
			for name, p := range props {
				fp, ok := compileFlatProp(p)
				if !ok {
					return nil
				}
				f.props[name] = fp
			}
		case k == "required":
			if json.Unmarshal(v, &f.required) != nil {
				return nil
			}
		case k == "additionalProperties":
			switch string(v) {
			case "false":
				f.closed = true
			case "true", "{}":
			default:
				return nil
			}
		default:
			return nil
		}
	}
	return f
}

func compileFlatProp(p map[string]json.RawMessage) (flatProp, bool) {
	fp := flatProp{min: math.Inf(-1), max: math.Inf(1)}
	for k, v := range p {
		switch {
		case annotation(k):
		case k == "type":
			if json.Unmarshal(v, &fp.kind) != nil {
				return fp, false
			}
			switch fp.kind {
			case "string", "boolean", "number", "integer":
			default:
				return fp, false
			}
		case k == "minimum" || k == "maximum":
			var n float64
			if json.Unmarshal(v, &n) != nil {
				return fp, false
			}
			if k == "minimum" {
				fp.min = n
			} else {
				fp.max = n
			}
		default:
			return fp, false
		}
	}
	if fp.kind != "number" && fp.kind != "integer" && (!math.IsInf(fp.min, -1) || !math.IsInf(fp.max, 1)) {
		return fp, false // bounds on other types (they apply to numbers only): leave it to the validator
	}
	return fp, true
}

// trivial reports whether the schema accepts exactly the JSON objects
// ({"type":"object"} with only annotations), which the snapshot already
// checks: then no validator runs at all.
func (f *flatSchema) trivial() bool {
	return f != nil && len(f.props) == 0 && len(f.required) == 0 && !f.closed
}

// valid reports whether v, a decoded JSON value, certainly satisfies the
// schema. false means "ask the full validator", not "invalid".
func (f *flatSchema) valid(v any) bool {
	obj, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, name := range f.required {
		if _, ok := obj[name]; !ok {
			return false
		}
	}
	for k, val := range obj {
		p, ok := f.props[k]
		if !ok {
			if f.closed {
				return false
			}
			continue
		}
		switch p.kind {
		case "":
		case "string":
			if _, ok := val.(string); !ok {
				return false
			}
		case "boolean":
			if _, ok := val.(bool); !ok {
				return false
			}
		case "number", "integer":
			n, ok := val.(float64)
			if !ok || math.IsNaN(n) || math.IsInf(n, 0) || n < p.min || n > p.max {
				return false
			}
			if p.kind == "integer" && n != math.Trunc(n) {
				return false
			}
		default:
			return false
		}
	}
	return true
}
