package audit

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/redact"
)

// FuzzAppendString: the line encoder's strings read back, through
// encoding/json, as what encoding/json itself makes of them.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `q"uote\back`, "tab\tnl\ncr\r\x00\x1f", "é✓😀", "\xff\xfe", "\u2028\u2029", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q encodes as %s, which is not JSON: %v", s, b, err)
		}
		ref, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(ref, &want)
		if got != want {
			t.Errorf("%q reads back as %q, want %q", s, got, want)
		}
	})
}

// FuzzAppendTime: a line's time is what time.RFC3339Nano makes of it, in
// UTC, whatever the zone, the fraction (trailing zeros trimmed, none for a
// whole second) and the order the seconds come in.
func FuzzAppendTime(f *testing.F) {
	for _, c := range []struct{ sec, nsec int64 }{
		{0, 0}, {1764583200, 123456000}, {1764583200, 100000000}, {1764583200, 1},
		{1764583200, 999999999}, {1764583201, 0}, {-1, 500}, {253402300799, 10},
	} {
		f.Add(c.sec, c.nsec)
	}
	tr := &Trail{}
	zone := time.FixedZone("X", 5*3600+30*60)
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		now := time.Unix(sec%(1<<34), nsec%1e9).In(zone)
		for range 2 { // the second time from the cached prefix
			got := string(tr.appendTime([]byte("x"), now))
			want := "x" + now.UTC().Format(time.RFC3339Nano)
			if got != want {
				t.Fatalf("%v: %q, want %q", now, got, want)
			}
		}
	})
}

// FuzzAppendMs: a line's ms is what strconv makes of the microseconds
// divided by 1000.
func FuzzAppendMs(f *testing.F) {
	for _, us := range []int64{0, 1, 10, 100, 999, 1000, 1001, 1010, 1100, 2113500, 999999999999, 1e12, 1e15 + 7, -1, -2500} {
		f.Add(us)
	}
	f.Fuzz(func(t *testing.T, us int64) {
		got := string(appendMs([]byte("x"), us))
		want := "x" + strconv.FormatFloat(float64(us)/1000, 'f', -1, 64)
		if got != want {
			t.Fatalf("%d µs: %q, want %q", us, got, want)
		}
	})
}

// FuzzMayMatch: whenever the default redaction rules redact a value,
// mayMatch said they might (the digest skips redaction only when it
// returns false).
func FuzzMayMatch(f *testing.F) {
	for _, s := range []string{`{}`, `{"path":"/a"}`, `{"Password":"x"}`, `{"TOKEN":1}`, `{"a":{"apiKey":[1]}}`,
		`{"p\u0061ssword":"x"}`, "{\"to\u212aen\":\"x\"}", "{\"authorİzation\":\"x\"}", `{"x":"{\"token\":\"y\"}"}`} {
		f.Add(s)
	}
	tr, err := Open(Options{Config: Config{Path: filepath.Join(f.TempDir(), "a.jsonl")}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { tr.Close() })
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		// Apply also compacts the text: count the markers.
		if r := tr.opts.Redact.Apply([]byte(s)); !tr.mayMatch(s) && strings.Count(string(r), redact.Marker) > strings.Count(s, redact.Marker) {
			t.Fatalf("%q is redacted to %q, but mayMatch says no rule's name occurs in it", s, r)
		}
	})
}

// TestMayMatchSkips: texts with none of the names are not redacted.
func TestMayMatchSkips(t *testing.T) {
	tr, err := Open(Options{Config: Config{Path: filepath.Join(t.TempDir(), "a.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, s := range []string{`{}`, `{"path":"/tmp/a.txt","n":3}`, `{"text":"café ✓ tok pass api"}`, `{"q":"\\n"}`} {
		if tr.mayMatch(s) {
			t.Errorf("mayMatch(%q) = true", s)
		}
	}
	for _, s := range []string{`{"Token":1}`, `{"x":"\u0041"}`, "{\"\u212a\":1}"} {
		if !tr.mayMatch(s) {
			t.Errorf("mayMatch(%q) = false", s)
		}
	}
}
