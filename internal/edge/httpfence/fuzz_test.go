package httpfence

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

var authoritySeeds = []string{
	"localhost:8080", "LOCALHOST:8080", "127.0.0.1:8080", "127.1", "[::1]:8080", "[::1]", "::1",
	"[0::1]:80", "[::ffff:127.0.0.1]:8080", "[fe80::1%eth0]:1", "example.com.", "example.com:080",
	"a..b", "xn--bcher-kva.example", "user@host", "http://x", "0x7f.0.0.1", "1.2.3.4:65535", "",
}

// FuzzParseAuthority checks that whatever parses has one canonical form,
// that the canonical form parses to the same thing, and that only canonical
// text is accepted as a trusted-host entry.
func FuzzParseAuthority(f *testing.F) {
	for _, s := range authoritySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseAuthority(s)
		if _, terr := parseTrusted(s); terr == nil && (err != nil || a.String() != s) {
			t.Fatalf("parseTrusted(%q) accepted text whose canonical form is %q (parse error %v)", s, a.String(), err)
		}
		if err != nil {
			return
		}
		c := a.String()
		if !strings.EqualFold(c, s) {
			t.Errorf("parseAuthority(%q): canonical form %q differs by more than case", s, c)
		}
		b, err := parseAuthority(c)
		if err != nil {
			t.Fatalf("canonical form %q of %q does not parse: %v", c, s, err)
		}
		if b != a {
			t.Errorf("parseAuthority(%q) = %+v, but its canonical form %q parses to %+v", s, a, c, b)
		}
		if _, err := parseTrusted(c); err != nil {
			t.Errorf("canonical form %q refused as a trusted host: %v", c, err)
		}
	})
}

// FuzzFence sends requests with arbitrary Host and Origin through the fence
// and checks every request it lets through against a simpler statement of
// the rules.
func FuzzFence(f *testing.F) {
	for _, s := range authoritySeeds {
		f.Add(s, "http://"+s, true)
		f.Add(s, "", false)
	}
	f.Add("localhost:8080", "null", true)
	f.Add("example.com:8443", "https://example.com:8443", true)
	f.Add("localhost:8080", "http://localhost:8080/", true)

	reached := false
	h, err := Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }),
		Config{Listen: "127.0.0.1:8080", TrustedHosts: []string{"example.com:8443"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, host, origin string, hasOrigin bool) {
		req := httptest.NewRequest(http.MethodGet, "http://x/", nil)
		req.Host = host
		if hasOrigin {
			req.Header["Origin"] = []string{origin}
		}
		reached = false
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if reached != (rec.Code == http.StatusOK) {
			t.Fatalf("Host %q Origin %q: status %d but handler reached = %v", host, origin, rec.Code, reached)
		}
		if !reached {
			if rec.Code != http.StatusForbidden {
				t.Fatalf("Host %q Origin %q: got status %d, want 403", host, origin, rec.Code)
			}
			return
		}
		lh := strings.ToLower(host)
		name, port, _ := strings.Cut(lh, ":")
		if strings.HasPrefix(lh, "[") {
			i := strings.LastIndex(lh, "]")
			name, port = lh[1:i], strings.TrimPrefix(lh[i+1:], ":")
		}
		ip, ipErr := netip.ParseAddr(name)
		loopback := name == "localhost" || (ipErr == nil && ip.IsLoopback())
		if !(loopback && port == "8080") && lh != "example.com:8443" {
			t.Fatalf("let through Host %q: not loopback:8080 nor the trusted example.com:8443", host)
		}
		if hasOrigin {
			lo := strings.ToLower(origin)
			rest, ok := strings.CutPrefix(lo, "http://")
			if !ok {
				rest, ok = strings.CutPrefix(lo, "https://")
			}
			if !ok || rest != lh {
				t.Fatalf("let through Origin %q for Host %q", origin, host)
			}
		}
	})
}
