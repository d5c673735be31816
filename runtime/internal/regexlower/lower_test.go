package regexlower_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/codemode/codemode/runtime/internal/goja"
	"github.com/codemode/codemode/runtime/internal/regexlower"
)

func TestLowered(t *testing.T) {
	for _, c := range []struct{ p, f, want, wantFlags string }{
		{`[[a-z]&&[aeiou]]`, "v", `[aeiou]`, "u"},
		{`[\q{abc|d|}x]`, "gv", `(?:abc|[dx]|)`, "gu"},
		{`(?i:a)b`, "", `(?:[Aa])b`, ""},
		{`(?-i:a)b`, "i", `(?:a)[Bb]`, ""},
		{`(?s:.)`, "", `(?:[\s\S])`, ""},
		{`(?m:^)`, "", `(?:(?<![^\n\r\u2028\u2029]))`, ""},
		{`(?i:\d)`, "", `(?:\d)`, ""},
		{`(?i:a)`, "i", `(?:a)`, "i"},
	} {
		got, gotFlags, err := regexlower.Lower(c.p, c.f)
		if err != nil || got != c.want || gotFlags != c.wantFlags {
			t.Errorf("Lower(%q, %q) = %q, %q, %v; want %q, %q", c.p, c.f, got, gotFlags, err, c.want, c.wantFlags)
		}
	}
}

func TestTooLarge(t *testing.T) {
	_, _, err := regexlower.Lower(strings.Repeat(`[\p{L}--[a]]`, 20), "v")
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("err = %v, want too large", err)
	}
}

func TestNeeds(t *testing.T) {
	for p, want := range map[string]bool{`(?:a)`: false, `(?<x>a)`: false, `(?i:a)`: true, `(?-s:a)`: true, `a`: false} {
		if got := regexlower.Needs(p, "g"); got != want {
			t.Errorf("Needs(%q) = %v", p, got)
		}
	}
	if !regexlower.Needs("a", "v") {
		t.Error("Needs(v) = false")
	}
}

// FuzzLower: the lowering never panics, stays under its size bound, leaves
// nothing to lower, and what it returns compiles or is a SyntaxError on goja.
func FuzzLower(f *testing.F) {
	b, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		f.Fatal(err)
	}
	var cases []struct {
		P string `json:"p"`
		F string `json:"f"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.P, c.F)
	}
	vm := goja.New()
	ctor := vm.Get("RegExp")
	f.Fuzz(func(t *testing.T, p, fl string) {
		lowered, lflags, err := regexlower.Lower(p, fl)
		if err != nil {
			return
		}
		if len(lowered) > regexlower.MaxLoweredLen {
			t.Fatalf("lowered %d bytes", len(lowered))
		}
		if strings.ContainsAny(lflags, "v") {
			t.Fatalf("flags %q", lflags)
		}
		if regexlower.Needs(lowered, lflags) {
			again, aflags, err := regexlower.Lower(lowered, lflags)
			if err == nil && (again != lowered || aflags != lflags) {
				t.Fatalf("Lower(%q, %q) = %q, lowered again %q", p, fl, lowered, again)
			}
		}
		if _, err := regexlower.RenameDuplicateGroups(lowered, lflags); err != nil && !strings.Contains(err.Error(), "Duplicate capture group name") {
			t.Fatalf("RenameDuplicateGroups(%q): %v", lowered, err)
		}
		_, err = vm.New(ctor, vm.ToValue(lowered), vm.ToValue(lflags))
		if err != nil && !strings.Contains(err.Error(), "SyntaxError") {
			t.Fatalf("/%s/%s: %v", lowered, lflags, err)
		}
	})
}
