package gojaengine

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codemode/codemode/runtime/internal/goja"
)

// viaJS renders v the way a program would see it: JSON.stringify, plus
// the marks JSON loses (negative zero, own __proto__ keys).
func viaJS(t testing.TB, vm *goja.Runtime, v goja.Value) string {
	t.Helper()
	if err := vm.Set("v", v); err != nil {
		t.Fatal(err)
	}
	out, err := vm.RunString(`JSON.stringify(v, (k, x) => Object.is(x, -0) ? "-0" : x) + "|" + (v !== null && typeof v === "object" ? Object.getOwnPropertyNames(v).join(",") + "|" + Object.getPrototypeOf(v === null ? {} : v).constructor.name : typeof v)`)
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestDecodeJSON(t *testing.T) {
	vm := goja.New()
	tests := []struct {
		in   string
		want string // viaJS of the value; "" means the text is refused
	}{
		{`1`, `1|number`},
		{` -0 `, `"-0"|number`},
		{`-12.5e1`, `-125|number`},
		{`123456789012345678901234`, `1.2345678901234569e+23|number`},
		{`1e400`, `null|number`}, // Infinity, as in JavaScript
		{`true`, `true|boolean`},
		{`null`, `null|object`},
		{`"a\"b\\c\/\b\f\n\r\t\u00e9\ud83d\ude00"`, `"a\"b\\c/\b\f\n\r\té😀"|string`},
		{`"\ud800x"`, `"�x"|string`},      // lone surrogate
		{`"\ud800\u0041"`, `"�A"|string`}, // high surrogate then not a low one
		{"\"caf\xe9\"", `"caf�"|string`},  // invalid UTF-8
		{`{}`, `{}||Object`},
		{`[]`, `[]|length|Array`},
		{`{"b":1,"a":[1,{"c":null}],"b":2}`, `{"b":2,"a":[1,{"c":null}]}|b,a|Object`},
		{`{"__proto__":{"x":1}}`, `{"__proto__":{"x":1}}|__proto__|Object`},
		{`[1,"two",[3],{"four":4},true,null]`, `[1,"two",[3],{"four":4},true,null]|0,1,2,3,4,5,length|Array`},
		{"", ""},
		{`01`, ""},
		{`1.`, ""},
		{`.5`, ""},
		{`1e`, ""},
		{`-`, ""},
		{`[1,]`, ""},
		{`{"a":1,}`, ""},
		{`{"a" 1}`, ""},
		{`{a:1}`, ""},
		{`"\x"`, ""},
		{`"\u12"`, ""},
		{"\"a\nb\"", ""},
		{`"open`, ""},
		{`[1 2]`, ""},
		{`1 2`, ""},
		{`tru`, ""},
		{`NaN`, ""},
		{strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1), ""},
	}
	for _, tt := range tests {
		v, err := decodeJSON(vm, tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%.40q: got %s, want an error", tt.in, viaJS(t, vm, v))
			}
			continue
		}
		if err != nil {
			t.Errorf("%.40q: %v", tt.in, err)
			continue
		}
		if got := viaJS(t, vm, v); got != tt.want {
			t.Errorf("%.40q: got %s, want %s", tt.in, got, tt.want)
		}
	}
	deep := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	if _, err := decodeJSON(vm, deep); err != nil {
		t.Errorf("nesting at the limit: %v", err)
	}
}

// FuzzDecodeJSON checks decodeJSON against goja's own JSON.parse: whatever
// JSON.parse accepts decodes to the same value, and what it refuses is
// refused. (JSON.parse refuses numbers out of float64 range, which
// decodeJSON reads as ±Infinity like JavaScript engines do; such inputs are
// skipped.)
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`1`, `-0`, `{"a":[1,2,{"b":null}]}`, `"\u00e9\ud83d\ude00"`, `[true,false,"x"]`, `{"__proto__":1,"a":1,"a":2}`, ` [ 1e3 , -2.5E-3 ] `, `"\ud800"`, `{"":""}`} {
		f.Add(s)
	}
	vm := goja.New()
	parse, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // JSON.parse takes a JS string; invalid UTF-8 is covered in the table
		}
		want, werr := parse(goja.Undefined(), vm.ToValue(s))
		got, gerr := decodeJSON(vm, s)
		if werr != nil {
			if gerr == nil && !strings.Contains(werr.Error(), "out of range") && !strings.Contains(werr.Error(), "cannot unmarshal number") {
				t.Fatalf("%q: JSON.parse refused it (%v), decodeJSON accepted %s", s, werr, viaJS(t, vm, got))
			}
			return
		}
		if gerr != nil {
			t.Fatalf("%q: JSON.parse accepted it, decodeJSON refused: %v", s, gerr)
		}
		if g, w := viaJS(t, vm, got), viaJS(t, vm, want); g != w {
			t.Fatalf("%q: got %s, JSON.parse gives %s", s, g, w)
		}
	})
}
