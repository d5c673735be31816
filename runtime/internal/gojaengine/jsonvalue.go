package gojaengine

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemode/codemode/runtime/internal/goja"
)

// maxJSONDepth bounds the nesting of a tool result, as encoding/json does.
const maxJSONDepth = 10000

// jsonDecoder turns a tool's JSON result into JavaScript values directly.
// It does what JSON.parse does (own data properties for every key,
// `__proto__` included; the last duplicate key wins; numbers as float64)
// without goja's JSON.parse, which goes through an encoding/json Decoder
// and allocates about 1.5 KB of buffers for every value, however small —
// the largest single cost of a nested call's result.
type jsonDecoder struct {
	vm    *goja.Runtime
	s     string
	i     int
	depth int
}

var errJSONDepth = errors.New("the value is nested too deeply")

// decodeJSON converts one JSON text into a value of vm.
func decodeJSON(vm *goja.Runtime, text string) (goja.Value, error) {
	d := jsonDecoder{vm: vm, s: text}
	d.space()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(d.s) {
		return nil, d.errorf("unexpected %q after the value", d.s[d.i])
	}
	return v, nil
}

func (d *jsonDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{d.i}, args...)...)
}

func (d *jsonDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value() (goja.Value, error) {
	if d.i >= len(d.s) {
		return nil, d.errorf("unexpected end of JSON input")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return d.vm.ToValue(s), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case d.literal("true"):
		return d.vm.ToValue(true), nil
	case d.literal("false"):
		return d.vm.ToValue(false), nil
	case d.literal("null"):
		return goja.Null(), nil
	default:
		return nil, d.errorf("unexpected %q", c)
	}
}

func (d *jsonDecoder) literal(word string) bool {
	if len(d.s)-d.i >= len(word) && d.s[d.i:d.i+len(word)] == word {
		d.i += len(word)
		return true
	}
	return false
}

func (d *jsonDecoder) enter() error {
	d.depth++
	if d.depth > maxJSONDepth {
		return errJSONDepth
	}
	return nil
}

func (d *jsonDecoder) object() (goja.Value, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.i++ // {
	obj := d.vm.NewObject()
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		d.depth--
		return obj, nil
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, d.errorf("expected a string key")
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, d.errorf("expected ':' after a key")
		}
		d.i++
		d.space()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		// CreateDataProperty, as JSON.parse: `__proto__` is an own key.
		if err := obj.DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
			return nil, err
		}
		if end, err := d.after('}'); err != nil || end {
			return obj, err
		}
	}
}

// after reads what follows a member or element: a comma (false) or the
// closing byte (true).
func (d *jsonDecoder) after(closing byte) (end bool, err error) {
	d.space()
	if d.i >= len(d.s) {
		return false, d.errorf("unexpected end of JSON input")
	}
	switch d.s[d.i] {
	case ',':
		d.i++
		return false, nil
	case closing:
		d.i++
		d.depth--
		return true, nil
	}
	return false, d.errorf("expected ',' or '%c'", closing)
}

func (d *jsonDecoder) array() (goja.Value, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.i++ // [
	var items []any
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		d.depth--
		return d.vm.NewArray(), nil
	}
	for {
		d.space()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if end, err := d.after(']'); err != nil {
			return nil, err
		} else if end {
			return d.vm.NewArray(items...), nil
		}
	}
}

func (d *jsonDecoder) number() (goja.Value, error) {
	start := d.i
	if d.s[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	intStart := d.i
	n := digits()
	if n == 0 || (n > 1 && d.s[intStart] == '0') {
		return nil, d.errorf("invalid number")
	}
	integer := true
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		integer = false
		if digits() == 0 {
			return nil, d.errorf("invalid number")
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		integer = false
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return nil, d.errorf("invalid number")
		}
	}
	lit := d.s[start:d.i]
	if integer && len(lit) < 16 { // exact in a float64: the common case
		n, _ := strconv.ParseInt(lit, 10, 64)
		if n == 0 && lit[0] == '-' {
			return d.vm.ToValue(math.Copysign(0, -1)), nil
		}
		return d.vm.ToValue(n), nil
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range is ±Infinity or 0, as in JavaScript
		return nil, d.errorf("invalid number %q", lit)
	}
	return d.vm.ToValue(f), nil
}

// str reads a string literal. Invalid UTF-8 and lone surrogate escapes
// become U+FFFD, as in encoding/json.
func (d *jsonDecoder) str() (string, error) {
	d.i++ // opening quote
	start := d.i
	for d.i < len(d.s) {
		c := d.s[d.i]
		if c == '"' {
			s := d.s[start:d.i]
			d.i++
			if !utf8.ValidString(s) {
				return validUTF8(s), nil
			}
			return s, nil
		}
		if c == '\\' {
			return d.strSlow(start)
		}
		if c < 0x20 {
			return "", d.errorf("control character in a string")
		}
		d.i++
	}
	return "", d.errorf("unterminated string")
}

// strSlow finishes a string that has escapes, from its first byte at start.
func (d *jsonDecoder) strSlow(start int) (string, error) {
	buf := []byte(d.s[start:d.i])
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			s := string(buf)
			if !utf8.ValidString(s) {
				return validUTF8(s), nil
			}
			return s, nil
		case c < 0x20:
			return "", d.errorf("control character in a string")
		case c != '\\':
			buf = append(buf, c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.s) {
			break
		}
		e := d.s[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", d.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if save := d.i; len(d.s)-d.i >= 6 && d.s[d.i] == '\\' && d.s[d.i+1] == 'u' {
					d.i += 2
					if x, ok := d.hex4(); ok {
						r2 = x
					}
					if utf16.DecodeRune(r, r2) == utf8.RuneError {
						d.i = save // not a pair: the next escape stands alone
						r2 = -1
					}
				}
				if r2 < 0 {
					r = utf8.RuneError
				} else {
					r = utf16.DecodeRune(r, r2)
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", d.errorf("invalid escape \\%c", e)
		}
	}
	return "", d.errorf("unterminated string")
}

func (d *jsonDecoder) hex4() (rune, bool) {
	if len(d.s)-d.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(d.s[d.i : d.i+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.i += 4
	return r, true
}

// validUTF8 replaces each invalid byte with U+FFFD.
func validUTF8(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		out = append(out, r)
	}
	return string(out)
}
