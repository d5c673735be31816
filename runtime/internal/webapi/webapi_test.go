package webapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// The values programs see are compared with V8 in runtime/testdata/webcorpus
// on both engines; these tests pin the Go side's own contract.

func TestURLParse(t *testing.T) {
	for _, c := range []struct{ in, base, href string }{
		{"https://EXAMPLE.com:443/a/./b/../c?q=1 2#f g", "", "https://example.com/a/c?q=1%202#f%20g"},
		{"http:\\\\a.com\\b", "", "http://a.com/b"},
		{"http://0x7f.1/", "", "http://127.0.0.1/"},
		{"http://[2001:db8:0:0:0:0:0:1]/", "", "http://[2001:db8::1]/"},
		{"../x", "http://a/b/c/d", "http://a/b/x"},
		{"//h/p", "https://a/", "https://h/p"},
		{"mailto:a@b", "", "mailto:a@b"},
		{"file:///C|/x", "", "file:///C:/x"},
		{"https://bücher.example/", "", "https://xn--bcher-kva.example/"},
	} {
		var base *url
		if c.base != "" {
			b, err := parseURL(c.base, nil)
			if err != nil {
				t.Fatalf("base %q: %v", c.base, err)
			}
			base = b
		}
		u, err := parseURL(c.in, base)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := u.href(); got != c.href {
			t.Errorf("%q: got %q, want %q", c.in, got, c.href)
		}
	}
	for _, bad := range []string{"", "x", "http://", "http://a:70000/", "http://[::1/", "https://a b/"} {
		if _, err := parseURL(bad, nil); err == nil {
			t.Errorf("%q parsed; want an error", bad)
		}
	}
}

func TestCallErrors(t *testing.T) {
	for _, c := range []struct{ op, arg, name string }{
		{"url", `["nope", null]`, "TypeError"},
		{"digest", "MD5\n00", "NotSupportedError"},
		{"random", "65537", "QuotaExceededError"},
		{"intl", `{"op":"nf.resolve","locales":["a b"]}`, "RangeError"},
		{"intl", `{"op":"nf.resolve","options":{"style":"currency"}}`, "TypeError"},
		{"nope", "", "TypeError"},
		{"url", strings.Repeat("x", 4*MaxArg+1), "RangeError"},
	} {
		_, err := Call(c.op, c.arg)
		e, ok := err.(*Error)
		if !ok || e.Name != c.name {
			t.Errorf("%s %.40q: got %v, want a %s", c.op, c.arg, err, c.name)
		}
	}
}

func TestDigestAndRandom(t *testing.T) {
	got, err := Call("digest", "SHA-256\n616263")
	if err != nil || got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("sha-256 of abc: %q, %v", got, err)
	}
	r, err := Call("random", "16")
	if err != nil || len(r) != 32 {
		t.Errorf("random 16: %q, %v", r, err)
	}
}

func TestRounding(t *testing.T) {
	for _, c := range []struct {
		in   string
		frac int
		mode string
		want string
	}{
		{"1.005", 2, "halfExpand", "1.01"},
		{"1.25", 1, "halfEven", "1.2"},
		{"1.35", 1, "halfEven", "1.4"},
		{"-1.25", 1, "halfCeil", "-1.2"},
		{"-1.25", 1, "floor", "-1.3"},
		{"9.995", 2, "halfExpand", "10"},
		{"0.0004", 3, "halfExpand", "0"},
		{"0.0005", 3, "halfExpand", "0.001"},
		{"123", 0, "trunc", "123"},
	} {
		d, _ := parseDec(c.in).roundFrac(c.frac, c.mode)
		if got := decString(d); got != c.want {
			t.Errorf("%s to %d (%s): got %s, want %s", c.in, c.frac, c.mode, got, c.want)
		}
	}
}

func decString(d dec) string {
	if d.isZero() {
		return "0"
	}
	s := ""
	if d.neg {
		s = "-"
	}
	ip, fp := "", ""
	for i := 0; i < max(d.exp, len(d.digits)); i++ {
		c := byte('0')
		if i < len(d.digits) {
			c = d.digits[i]
		}
		if i < d.exp {
			ip += string(c)
		} else {
			fp += string(c)
		}
	}
	for i := d.exp; i < 0; i++ {
		fp = "0" + fp
	}
	if ip == "" {
		ip = "0"
	}
	if fp != "" {
		return s + ip + "." + fp
	}
	return s + ip
}

func TestIntlFormat(t *testing.T) {
	format := func(locale string, opts map[string]any, value string) string {
		t.Helper()
		req, _ := json.Marshal(map[string]any{"op": "nf.resolve", "locales": []string{locale}, "options": opts})
		res, err := Call("intl", string(req))
		if err != nil {
			t.Fatal(err)
		}
		var pairs [][2]any
		_ = json.Unmarshal([]byte(res), &pairs)
		r := map[string]any{}
		for _, p := range pairs {
			r[p[0].(string)] = p[1]
		}
		v, _ := json.Marshal(value)
		req, _ = json.Marshal(map[string]any{"op": "nf.format", "resolved": r, "value": json.RawMessage(v)})
		res, err = Call("intl", string(req))
		if err != nil {
			t.Fatal(err)
		}
		var parts [][2]string
		_ = json.Unmarshal([]byte(res), &parts)
		s := ""
		for _, p := range parts {
			s += p[1]
		}
		return s
	}
	for _, c := range []struct {
		locale string
		opts   map[string]any
		value  string
		want   string
	}{
		{"en-US", nil, "1234567.891", "1,234,567.891"},
		{"de-DE", map[string]any{"style": "currency", "currency": "EUR"}, "1234.5", "1.234,50\u00a0€"},
		{"en-US", map[string]any{"notation": "compact"}, "1234567", "1.2M"},
		{"en-US", map[string]any{"style": "percent"}, "-0.256", "-26%"},
		{"ja-JP", map[string]any{"style": "currency", "currency": "JPY"}, "1234.5", "￥1,235"},
	} {
		if got := format(c.locale, c.opts, c.value); got != c.want {
			t.Errorf("%s %v %s: got %q, want %q", c.locale, c.opts, c.value, got, c.want)
		}
	}
}
