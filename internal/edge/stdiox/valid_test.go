package stdiox

import (
	"encoding/json"
	"strings"
	"testing"
)

var validCases = []string{
	``, ` `, `{}`, `[]`, `"`, `"\"`, `"\\"`, `"\\\""`, `{"a":"\\\\\"{"}`, `[1,2,]`, `{"a":1,}`,
	`01`, `-`, `1.`, `1e`, `1e+`, `-0`, `1E5`, `tru`, `true `, `nul`, `null null`, `"\u12"`, `"\u1234"`,
	`"\ud800"`, "\"\x01\"", "\"\xff\"", `{"a" 1}`, `{1:2}`, `[` + strings.Repeat(`"\\",`, 5) + `1]`,
	strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting),
	strings.Repeat("[", maxNesting+1) + strings.Repeat("]", maxNesting+1),
	strings.Repeat(`{"a":`, maxNesting) + "1" + strings.Repeat("}", maxNesting),
	strings.Repeat(`{"a":`, maxNesting+1) + "1" + strings.Repeat("}", maxNesting+1),
	`["]]]]", "\\"]`, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\"}"}}`,
}

// valid answers as encoding/json.Valid does.
func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		if len(c) < 100 { // the deep ones slow every execution down
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := valid(b), json.Valid(b); got != want {
			t.Fatalf("valid(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}

func TestValidAsEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		if got, want := valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("valid(%.60q) = %v, json.Valid %v", c, got, want)
		}
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,"b"]}}`)
	if n := testing.AllocsPerRun(10, func() { valid(msg) }); n != 0 {
		t.Errorf("valid allocates %v times", n)
	}
}

func BenchmarkValidLongString(b *testing.B) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"code_run","arguments":{"code":"` + strings.Repeat("x", 12<<20) + `"}}}`)
	b.Run("ours", func(b *testing.B) {
		for b.Loop() {
			valid(frame)
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			json.Valid(frame)
		}
	})
}
