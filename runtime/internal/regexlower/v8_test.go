package regexlower_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/codemode/codemode/runtime/internal/goja"
)

// TestGojaMatchesV8 runs testdata/probe.js over testdata/cases.json on
// goja (which lowers the v flag and modifiers through this package) and
// compares every answer with V8's (testdata/v8.json, written by
// scripts/regexlower-v8.mjs).
func TestGojaMatchesV8(t *testing.T) {
	probe, err := os.ReadFile("testdata/probe.js")
	if err != nil {
		t.Fatal(err)
	}
	casesJSON, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/v8.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		P  string   `json:"p"`
		F  string   `json:"f"`
		In []string `json:"in"`
	}
	if err := json.Unmarshal(casesJSON, &cases); err != nil {
		t.Fatal(err)
	}
	var wantList []json.RawMessage
	if err := json.Unmarshal(want, &wantList); err != nil {
		t.Fatal(err)
	}
	if len(wantList) != len(cases) {
		t.Fatalf("v8.json has %d answers for %d cases: run scripts/regexlower-v8.mjs", len(wantList), len(cases))
	}
	vm := goja.New()
	fn, err := vm.RunString(string(probe))
	if err != nil {
		t.Fatal(err)
	}
	call, _ := goja.AssertFunction(fn)
	stringify, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
	for i, c := range cases {
		arg, err := vm.RunString("(" + mustJSON(t, []any{c}) + ")")
		if err != nil {
			t.Fatal(err)
		}
		res, err := call(goja.Undefined(), arg)
		if err != nil {
			t.Errorf("/%s/%s: %v", c.P, c.F, err)
			continue
		}
		js, err := stringify(goja.Undefined(), res)
		if err != nil {
			t.Fatal(err)
		}
		got := []byte(js.String())
		got = bytes.TrimSuffix(bytes.TrimPrefix(got, []byte("[")), []byte("]"))
		if !jsonEqual(t, got, wantList[i]) {
			t.Errorf("/%s/%s:\ngoja %s\nV8   %s", c.P, c.F, got, wantList[i])
		}
	}
}

// TestRefused: what the lowering cannot express is a SyntaxError on goja,
// though V8 accepts it.
func TestRefused(t *testing.T) {
	vm := goja.New()
	for _, src := range []string{
		`/(?i:(a)\1)/`,
		`/(a)(?i:\1)/`,
		`/(?<n>a)(?i:\k<n>)/`,
		`/\p{RGI_Emoji}/v`,
		`/[\p{RGI_Emoji}--\q{x}]/v`,
	} {
		_, err := vm.RunString(src)
		if err == nil || !strings.Contains(err.Error(), "SyntaxError") {
			t.Errorf("%s: %v, want a SyntaxError", src, err)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
