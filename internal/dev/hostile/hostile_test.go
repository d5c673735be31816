package hostile

import (
	"context"
	"encoding/json"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

func TestCasesParse(t *testing.T) {
	cs, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	perClass := map[int]int{}
	names := map[string]bool{}
	for _, c := range cs {
		perClass[c.Class]++
		if names[c.Name] {
			t.Errorf("case %q twice", c.Name)
		}
		names[c.Name] = true
		if strings.Contains(c.Program, "{{%") {
			t.Errorf("case %q: directive left in the program", c.Name)
		}
	}
	for cl := 1; cl <= 5; cl++ {
		if perClass[cl] < 2 {
			t.Errorf("class %d has %d cases, want at least 2 (issue 18)", cl, perClass[cl])
		}
	}
	var big Case
	for _, c := range cs {
		if c.Name == "12 MB program" {
			big = c
		}
	}
	if len(big.Program) != 12_000_000 {
		t.Errorf("12 MB program is %d bytes", len(big.Program))
	}
}

func TestParseCasesErrors(t *testing.T) {
	for _, bad := range []string{
		"-- a.js --\n1\n",                                 // no want
		"-- a.js --\n1\n-- a.want --\nclass: 9\n",         // class
		"-- a.js --\n1\n-- a.want --\nclass: 1\nfoo: 1\n", // key
		"-- a.js --\n{{% repeat x 3 %}}\n-- a.want --\nclass: 1\n",
	} {
		if _, err := ParseCases([]byte(bad)); err == nil {
			t.Errorf("ParseCases(%q): no error", bad)
		}
	}
}

func TestJudge(t *testing.T) {
	c := Case{Codes: []string{"TIMEOUT"}}
	r := Result{Engine: "wazero", Survived: true, RSSRatio: 1.3, CPUAfter: 0.2, Bytes: 10, ResponseBudget: 100,
		Code: "TIMEOUT", Canary: &CanaryStats{StepMs: 150}}
	judge(&r, &c, nil)
	if strings.Join(r.Fail, ",") != "rss,canary" {
		t.Errorf("fail = %v, want rss,canary", r.Fail)
	}
	r.Engine = "goja"
	r.Canary.StepMs = 10
	judge(&r, &c, nil)
	if !r.Pass() {
		t.Errorf("fail = %v, want none", r.Fail)
	}
	if got := checkAnswer(&Case{Value: json.RawMessage(`[]`)}, "OK", json.RawMessage(`["x"]`), ""); !strings.HasPrefix(got, "value ") {
		t.Errorf("checkAnswer with a wrong value = %q", got)
	}
	if got := checkAnswer(&Case{Forbid: []string{"github.com"}}, "OK", nil, "a github.com/x"); got != "forbidden github.com" {
		t.Errorf("checkAnswer with forbidden text = %q", got)
	}
}

// TestHarness runs a cheap case through the real binary: `run --json` and
// `serve` over stdio, on both engines (the harness itself, not the
// targets: scripts/hostile is the suite).
func TestHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds codemode and starts servers")
	}
	if goruntime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	dir := t.TempDir()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	exe, err := Build(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	var cases []Case
	for _, c := range all {
		if c.Cheap {
			cases = append(cases, c)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rs, err := Run(ctx, Options{Exe: exe, Dir: dir, Transports: []string{RunJSON, Stdio}, Cases: cases,
		After: 300 * time.Millisecond, Warm: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 1 || len(rs) != 4 {
		t.Fatalf("%d results, want 4", len(rs))
	}
	for _, r := range rs {
		t.Log(r.line())
		if !r.Survived || r.PeakRSS == 0 || r.Bytes == 0 || r.Code != "RUNTIME_ERROR" {
			t.Errorf("%s on %s over %s: %+v", r.Case, r.Engine, r.Transport, r)
		}
		if (r.Transport == Stdio) != (r.Canary != nil) {
			t.Errorf("%s over %s: canary %v", r.Case, r.Transport, r.Canary)
		}
		if r.Canary != nil && (r.Canary.Runs == 0 || r.Canary.Errors > 0) {
			t.Errorf("%s on %s: canary %+v", r.Case, r.Engine, *r.Canary)
		}
	}
	var md strings.Builder
	WriteMarkdown(&md, Header{Memory: 64 << 20, Timeout: "2s", Result: 512 << 10}, rs)
	if !strings.Contains(md.String(), "| e.code override | 5 | goja | stdio |") {
		t.Errorf("markdown lacks a row:\n%s", md.String())
	}
	var js strings.Builder
	if err := WriteJSON(&js, Header{}, rs); err != nil || !json.Valid([]byte(js.String())) {
		t.Errorf("WriteJSON: %v", err)
	}
}
