package redact_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/redact"
)

func TestRulesApply(t *testing.T) {
	tests := []struct {
		name  string
		rules []string // nil: Default
		in    string
		want  string
		n     int
	}{
		{name: "defaults at any depth, any case",
			in:   `{"user":"ann","Password":"x","nested":{"TOKEN":{"a":1},"list":[{"apikey":"k"},{"authorization":"Bearer z"}]}}`,
			want: `{"user":"ann","Password":"[REDACTED]","nested":{"TOKEN":"[REDACTED]","list":[{"apikey":"[REDACTED]"},{"authorization":"[REDACTED]"}]}}`,
			n:    4},
		{name: "near names are kept", in: `{"access_token":"a","tokens":1,"pass":"p"}`,
			want: `{"access_token":"a","tokens":1,"pass":"p"}`},
		{name: "order, numbers and HTML kept", in: "{ \"z\": 1.50, \"a\": [1e3, -0], \"h\": \"<b>&</b>\" }",
			want: `{"z":1.50,"a":[1e3,-0],"h":"<b>&</b>"}`},
		{name: "pointer", rules: []string{"/auth/secret", "/list/1", "/a~1b/c~0d"},
			in:   `{"auth":{"secret":"s","other":"o"},"secret":"top","list":["x","y","z"],"a/b":{"c~d":5}}`,
			want: `{"auth":{"secret":"[REDACTED]","other":"o"},"secret":"top","list":["x","[REDACTED]","z"],"a/b":{"c~d":"[REDACTED]"}}`,
			n:    3},
		{name: "pointer is case-sensitive, key rule is not", rules: []string{"/Auth", "pin"},
			in: `{"auth":1,"Auth":2,"PIN":3}`, want: `{"auth":1,"Auth":"[REDACTED]","PIN":"[REDACTED]"}`, n: 2},
		{name: "not an object", in: `"token"`, want: `"token"`},
		{name: "JSON inside a string", rules: []string{"token", "/content/0/text/user/pin"},
			in:   `{"content":[{"type":"text","text":"{\n  \"user\": {\"pin\": 1, \"name\": \"ann\"},\n  \"token\": \"t\"}"},{"type":"text","text":"[1, {\"a\": 2}]"},{"type":"text","text":"{not json, token: x}"}]}`,
			want: `{"content":[{"type":"text","text":"{\"user\":{\"pin\":\"[REDACTED]\",\"name\":\"ann\"},\"token\":\"[REDACTED]\"}"},{"type":"text","text":"[1, {\"a\": 2}]"},{"type":"text","text":"{not json, token: x}"}]}`,
			n:    2},
		{name: "invalid JSON fails closed", in: `{"token": `, want: `"[REDACTED]"`, n: 1},
		{name: "trailing data fails closed", in: `{} {}`, want: `"[REDACTED]"`, n: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := redact.Default()
			if tt.rules != nil {
				var err error
				if r, err = redact.New(tt.rules); err != nil {
					t.Fatal(err)
				}
			}
			got, n := r.Redact(json.RawMessage(tt.in))
			if string(got) != tt.want || n != tt.n {
				t.Errorf("Redact(%s):\ngot  %s (%d)\nwant %s (%d)", tt.in, got, n, tt.want, tt.n)
			}
		})
	}
}

func TestNilAndEmptyRules(t *testing.T) {
	in := json.RawMessage(`{"token":  "x"}`)
	var nilRules *redact.Rules
	empty, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*redact.Rules{nilRules, empty} {
		if got := r.Apply(in); string(got) != string(in) {
			t.Errorf("Apply: got %s, want the document unchanged", got)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	tests := []struct {
		entry, want string
	}{
		{"", "empty rule"},
		{"/a~2", "~"},
		{"/a~", "~"},
	}
	for _, tt := range tests {
		_, err := redact.New([]string{"token", tt.entry})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "rule 1") {
			t.Errorf("New(%q): got %v, want an error about %q naming rule 1", tt.entry, err, tt.want)
		}
	}
}

func TestSecrets(t *testing.T) {
	s := redact.NewSecrets("short", "Bearer abcdefgh12345", "/tmp/memory-file.json", "")
	in := `{"env":{"HOME":"/root","T":"Bearer abcdefgh12345"},"text":"token=abcdefgh12345; file /tmp/memory-file.json","short":"short","abcdefgh12345":1}`
	want := `{"env":{"HOME":"/root","T":"[REDACTED]"},"text":"token=[REDACTED]; file [REDACTED]","short":"short","[REDACTED]":1}`
	if got := s.Apply(json.RawMessage(in)); string(got) != want {
		t.Errorf("Apply:\ngot  %s\nwant %s", got, want)
	}
	if got := s.String("x abcdefgh12345 y"); got != "x [REDACTED] y" {
		t.Errorf("String: got %q", got)
	}
	// JSON inside a string is still a string: the secret inside it is found.
	nested := `{"text":"{\"GITHUB_TOKEN\":\"abcdefgh12345\"}"}`
	if got := s.Apply(json.RawMessage(nested)); strings.Contains(string(got), "abcdefgh12345") {
		t.Errorf("Apply(%s) = %s: the secret survived", nested, got)
	}
	if !redact.NewSecrets("tiny", "").Empty() {
		t.Error("NewSecrets of short values: want Empty")
	}
}

func TestDefaultEntries(t *testing.T) {
	if got, want := strings.Join(redact.Default().Entries(), ","), "password,token,authorization,apiKey"; got != want {
		t.Errorf("Default().Entries(): got %s, want %s", got, want)
	}
}

func FuzzApply(f *testing.F) {
	for _, s := range []string{`{"token":"x","a":[1,{"password":2}]}`, `[]`, `"s"`, `{"a":{"b":"c"}}`, `{`, `1e400`} {
		f.Add(s)
	}
	r, err := redact.New([]string{"token", "password", "/a/b"})
	if err != nil {
		f.Fatal(err)
	}
	s := redact.NewSecrets("secret-value")
	f.Fuzz(func(t *testing.T, doc string) {
		out, _ := r.Redact(json.RawMessage(doc))
		if !json.Valid(out) {
			t.Fatalf("Redact(%q) = %q: not JSON", doc, out)
		}
		again, n := r.Redact(out)
		if string(again) != string(out) && n == 0 {
			t.Fatalf("Redact is not stable: %q then %q", out, again)
		}
		if got := s.Apply(json.RawMessage(doc)); !json.Valid(got) || strings.Contains(string(got), "secret-value") {
			t.Fatalf("Secrets.Apply(%q) = %q", doc, got)
		}
	})
}
