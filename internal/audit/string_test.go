package audit

import (
	"encoding/json"
	"testing"
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
