package audit

import (
	"encoding/json"
	"testing"
	"time"
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
