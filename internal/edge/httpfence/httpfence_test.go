package httpfence_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/edge/httpfence"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		cfg     httpfence.Config
		wantErr string // substring; "" means no error
	}{
		{name: "IPv4 loopback", cfg: httpfence.Config{Listen: "127.0.0.1:8080"}},
		{name: "other 127/8 address", cfg: httpfence.Config{Listen: "127.0.0.2:8080"}},
		{name: "localhost", cfg: httpfence.Config{Listen: "localhost:8080"}},
		{name: "IPv6 loopback", cfg: httpfence.Config{Listen: "[::1]:8080"}},
		{name: "port 0 at start-up", cfg: httpfence.Config{Listen: "127.0.0.1:0"}},
		{name: "all interfaces without token", cfg: httpfence.Config{Listen: ":8080"}, wantErr: "needs a bearer token"},
		{name: "unspecified IPv4 without token", cfg: httpfence.Config{Listen: "0.0.0.0:8080"}, wantErr: "needs a bearer token"},
		{name: "unspecified IPv6 without token", cfg: httpfence.Config{Listen: "[::]:8080"}, wantErr: "needs a bearer token"},
		{name: "LAN address without token", cfg: httpfence.Config{Listen: "192.168.1.5:8080"}, wantErr: "not loopback"},
		{name: "host name without token", cfg: httpfence.Config{Listen: "myhost.lan:8080"}, wantErr: "not loopback"},
		{name: "IPv4-mapped loopback", cfg: httpfence.Config{Listen: "[::ffff:127.0.0.1]:8080"}}, // binds 127.0.0.1
		{name: "LAN address with token", cfg: httpfence.Config{Listen: "192.168.1.5:8080", BearerToken: "t"}},
		{name: "all interfaces with token", cfg: httpfence.Config{Listen: ":8080", BearerToken: "t"}},
		{name: "no port", cfg: httpfence.Config{Listen: "127.0.0.1"}, wantErr: "listen address"},
		{name: "port out of range", cfg: httpfence.Config{Listen: "127.0.0.1:65536"}, wantErr: "out of range"},
		{name: "named port", cfg: httpfence.Config{Listen: "127.0.0.1:http"}, wantErr: "not a number"},
		{name: "empty", cfg: httpfence.Config{}, wantErr: "listen address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := httpfence.Check(tt.cfg)
			if got := errString(err); !matches(got, tt.wantErr) {
				t.Errorf("Check(%+v): got %q, want %s", tt.cfg, got, describe(tt.wantErr))
			}
		})
	}
}

func TestCheckTrustedHosts(t *testing.T) {
	tests := []struct {
		entry   string
		wantErr string // substring after the entry is named; "" means canonical
	}{
		{entry: "example.com"},
		{entry: "example.com:8443"},
		{entry: "codemode"},
		{entry: "a-b.c-d.example"},
		{entry: "xn--bcher-kva.example"},
		{entry: "192.168.1.5:8080"},
		{entry: "[::1]:8080"},
		{entry: "[2001:db8::1]"},
		{entry: "Example.com", wantErr: `write "example.com"`},
		{entry: "EXAMPLE.COM:80", wantErr: `write "example.com:80"`},
		{entry: "http://example.com", wantErr: "scheme"},
		{entry: "example.com/", wantErr: "path"},
		{entry: "example.com/mcp", wantErr: "path"},
		{entry: "user@example.com", wantErr: "userinfo"},
		{entry: "example.com.", wantErr: "trailing dot"},
		{entry: "example.com.:80", wantErr: "trailing dot"},
		{entry: " example.com", wantErr: "whitespace"},
		{entry: "example.com ", wantErr: "whitespace"},
		{entry: "example.com\t", wantErr: "whitespace"},
		{entry: "", wantErr: "empty"},
		{entry: "example.com:", wantErr: "port"},
		{entry: "example.com:0", wantErr: "out of range"},
		{entry: "example.com:65536", wantErr: "out of range"},
		{entry: "example.com:080", wantErr: "leading zeros"},
		{entry: "example.com:+80", wantErr: "not a number"},
		{entry: "example.com:http", wantErr: "not a number"},
		{entry: "::1", wantErr: "brackets"},
		{entry: "[::1", wantErr: "unclosed"},
		{entry: "[::1]x", wantErr: "after ']'"},
		{entry: "[0:0:0:0:0:0:0:1]", wantErr: `canonical form "::1"`},
		{entry: "[2001:DB8::1]", wantErr: `write "[2001:db8::1]"`},
		{entry: "[fe80::1%eth0]", wantErr: "zone"},
		{entry: "[::ffff:127.0.0.1]", wantErr: "IPv4-mapped"},
		{entry: "[127.0.0.1]", wantErr: "IPv6"},
		{entry: "127.000.0.1", wantErr: "IPv4"},
		{entry: "127.1", wantErr: "IPv4"},
		{entry: "0x7f.0.0.1", wantErr: "IPv4"},
		{entry: "256.0.0.1", wantErr: "IPv4"},
		{entry: "exa_mple.com", wantErr: `contains '_'`},
		{entry: "-example.com", wantErr: "starts or ends with '-'"},
		{entry: "a..b", wantErr: "empty label"},
		{entry: "bücher.example", wantErr: "punycode"},
		{entry: "*.example.com", wantErr: `contains '*'`},
		{entry: strings.Repeat("a", 64) + ".com", wantErr: "longer than 63"},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			err := httpfence.Check(httpfence.Config{Listen: "127.0.0.1:8080", TrustedHosts: []string{"ok.example", tt.entry}})
			got := errString(err)
			if !matches(got, tt.wantErr) {
				t.Errorf("trusted host %q: got %q, want %s", tt.entry, got, describe(tt.wantErr))
			}
			if err != nil && !strings.Contains(got, fmt.Sprintf("trusted host %q", tt.entry)) {
				t.Errorf("trusted host %q: got %q, want the error to name the entry", tt.entry, got)
			}
		})
	}
}

func TestWrapNeedsBoundPort(t *testing.T) {
	_, err := httpfence.Wrap(http.NotFoundHandler(), httpfence.Config{Listen: "127.0.0.1:0"})
	if got, want := errString(err), "port 0"; !matches(got, want) {
		t.Errorf("Wrap with port 0: got %q, want %s", got, describe(want))
	}
	_, err = httpfence.Wrap(http.NotFoundHandler(), httpfence.Config{Listen: ":8080"})
	if got, want := errString(err), "bearer token"; !matches(got, want) {
		t.Errorf("Wrap with a non-loopback bind: got %q, want %s", got, describe(want))
	}
}

func TestFence(t *testing.T) {
	configs := map[string]httpfence.Config{
		"loopback": {Listen: "127.0.0.1:8080", TrustedHosts: []string{"codemode.example", "lan.example:9000"}},
		"ipv6":     {Listen: "[::1]:8080"},
		"port80":   {Listen: "localhost:80"},
		"token":    {Listen: "0.0.0.0:8080", TrustedHosts: []string{"192.168.1.5:8080"}, BearerToken: "s3cret"},
	}
	tests := []struct {
		name       string
		cfg        string
		host       string
		tls        bool
		header     http.Header
		wantStatus int
		wantBody   string // substring of a refusal
	}{
		// Host: the DNS-rebinding fence.
		{name: "loopback IP", cfg: "loopback", host: "127.0.0.1:8080", wantStatus: 200},
		{name: "localhost", cfg: "loopback", host: "localhost:8080", wantStatus: 200},
		{name: "localhost in capitals", cfg: "loopback", host: "LocalHost:8080", wantStatus: 200},
		{name: "another 127/8 address", cfg: "loopback", host: "127.0.0.53:8080", wantStatus: 200},
		{name: "rebound host", cfg: "loopback", host: "attacker.example:8080", wantStatus: 403, wantBody: "DNS-rebinding"},
		{name: "rebound host without port", cfg: "loopback", host: "attacker.example", wantStatus: 403, wantBody: "DNS-rebinding"},
		{name: "loopback on another port", cfg: "loopback", host: "localhost:9999", wantStatus: 403, wantBody: "port 8080"},
		{name: "loopback without port is port 80", cfg: "loopback", host: "localhost", wantStatus: 403, wantBody: "port 8080"},
		{name: "localhost with trailing dot", cfg: "loopback", host: "localhost.:8080", wantStatus: 403, wantBody: "trailing dot"},
		{name: "subdomain of localhost", cfg: "loopback", host: "evil.localhost:8080", wantStatus: 403, wantBody: "DNS-rebinding"},
		{name: "port with leading zero", cfg: "loopback", host: "127.0.0.1:08080", wantStatus: 403, wantBody: "leading zeros"},
		{name: "short IPv4 form", cfg: "loopback", host: "127.1:8080", wantStatus: 403, wantBody: "IPv4"},
		{name: "empty host", cfg: "loopback", host: "", wantStatus: 403, wantBody: "empty"},
		{name: "host with userinfo", cfg: "loopback", host: "attacker@localhost:8080", wantStatus: 403, wantBody: "userinfo"},
		{name: "trusted host, any port", cfg: "loopback", host: "codemode.example:1234", wantStatus: 200},
		{name: "trusted host, no port", cfg: "loopback", host: "codemode.example", wantStatus: 200},
		{name: "trusted host and port", cfg: "loopback", host: "lan.example:9000", wantStatus: 200},
		{name: "trusted host, other port", cfg: "loopback", host: "lan.example:9001", wantStatus: 403, wantBody: "DNS-rebinding"},
		{name: "trusted host's subdomain", cfg: "loopback", host: "x.codemode.example", wantStatus: 403, wantBody: "DNS-rebinding"},

		// IPv6 loopback.
		{name: "IPv6 loopback", cfg: "ipv6", host: "[::1]:8080", wantStatus: 200},
		{name: "IPv6 loopback same origin", cfg: "ipv6", host: "[::1]:8080",
			header: http.Header{"Origin": {"http://[::1]:8080"}}, wantStatus: 200},
		{name: "IPv6 loopback long form", cfg: "ipv6", host: "[0:0:0:0:0:0:0:1]:8080", wantStatus: 403, wantBody: "canonical"},
		{name: "IPv4-mapped loopback", cfg: "ipv6", host: "[::ffff:127.0.0.1]:8080", wantStatus: 403, wantBody: "IPv4-mapped"},
		{name: "IPv6 unbracketed", cfg: "ipv6", host: "::1", wantStatus: 403, wantBody: "brackets"},
		{name: "IPv6 with zone", cfg: "ipv6", host: "[::1%25lo]:8080", wantStatus: 403, wantBody: "zone"},

		// Sec-Fetch-Site.
		{name: "cross-site fetch", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Sec-Fetch-Site": {"cross-site"}}, wantStatus: 403, wantBody: "cross-site"},
		{name: "cross-site fetch, odd case", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Sec-Fetch-Site": {" Cross-Site "}}, wantStatus: 403, wantBody: "cross-site"},
		{name: "same-origin fetch", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Sec-Fetch-Site": {"same-origin"}}, wantStatus: 200},
		{name: "user-initiated fetch", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Sec-Fetch-Site": {"none"}}, wantStatus: 200},

		// Origin.
		{name: "same origin", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {"http://localhost:8080"}, "Sec-Fetch-Site": {"same-origin"}}, wantStatus: 200},
		{name: "same origin over https", cfg: "loopback", host: "codemode.example", tls: true,
			header: http.Header{"Origin": {"https://codemode.example"}}, wantStatus: 200},
		{name: "same origin, default port spelled out", cfg: "port80", host: "localhost:80",
			header: http.Header{"Origin": {"http://localhost"}}, wantStatus: 200},
		{name: "same origin, default port left out", cfg: "port80", host: "localhost",
			header: http.Header{"Origin": {"http://localhost:80"}}, wantStatus: 200},
		{name: "foreign origin", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {"http://attacker.example"}}, wantStatus: 403, wantBody: "does not match"},
		{name: "origin on another loopback port", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {"http://localhost:9999"}}, wantStatus: 403, wantBody: "does not match"},
		{name: "origin naming another loopback spelling", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {"http://127.0.0.1:8080"}}, wantStatus: 403, wantBody: "does not match"},
		{name: "origin on default port, host on another", cfg: "loopback", host: "codemode.example:8080",
			header: http.Header{"Origin": {"http://codemode.example"}}, wantStatus: 403, wantBody: "does not match"},
		{name: "origin null", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {"null"}}, wantStatus: 403, wantBody: "null"},
		{name: "origin empty", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {""}}, wantStatus: 403, wantBody: "scheme://"},
		{name: "origin with path", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {"http://localhost:8080/"}}, wantStatus: 403, wantBody: "path"},
		{name: "origin with other scheme", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {"file://localhost:8080"}}, wantStatus: 403, wantBody: "http or https"},
		{name: "two origins", cfg: "loopback", host: "localhost:8080",
			header: http.Header{"Origin": {"http://localhost:8080", "http://attacker.example"}}, wantStatus: 403, wantBody: "2 Origin headers"},

		// Bearer token.
		{name: "token ok", cfg: "token", host: "192.168.1.5:8080",
			header: http.Header{"Authorization": {"Bearer s3cret"}}, wantStatus: 200},
		{name: "token ok, scheme in lower case", cfg: "token", host: "localhost:8080",
			header: http.Header{"Authorization": {"bearer s3cret"}}, wantStatus: 200},
		{name: "token wrong", cfg: "token", host: "192.168.1.5:8080",
			header: http.Header{"Authorization": {"Bearer s3cre"}}, wantStatus: 401, wantBody: "bearer token"},
		{name: "token missing", cfg: "token", host: "192.168.1.5:8080", wantStatus: 401, wantBody: "bearer token"},
		{name: "token in another scheme", cfg: "token", host: "192.168.1.5:8080",
			header: http.Header{"Authorization": {"Basic s3cret"}}, wantStatus: 401, wantBody: "bearer token"},
		{name: "token twice", cfg: "token", host: "192.168.1.5:8080",
			header: http.Header{"Authorization": {"Bearer s3cret", "Bearer s3cret"}}, wantStatus: 401, wantBody: "bearer token"},
		{name: "token ok but host not trusted", cfg: "token", host: "attacker.example:8080",
			header: http.Header{"Authorization": {"Bearer s3cret"}}, wantStatus: 403, wantBody: "DNS-rebinding"},
	}
	handlers := map[string]http.Handler{}
	for name, cfg := range configs {
		h, err := httpfence.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "reached")
		}), cfg)
		if err != nil {
			t.Fatalf("Wrap(%s): %v", name, err)
		}
		handlers[name] = h
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := "http://x/mcp"
			if tt.tls {
				target = "https://x/mcp"
			}
			req := httptest.NewRequest(http.MethodPost, target, strings.NewReader("{}"))
			req.Host = tt.host
			for k, vs := range tt.header {
				req.Header[k] = vs
			}
			rec := httptest.NewRecorder()
			handlers[tt.cfg].ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != tt.wantStatus {
				t.Fatalf("status: got %d (%q), want %d", rec.Code, body, tt.wantStatus)
			}
			if tt.wantStatus == 200 {
				if body != "reached" {
					t.Errorf("body: got %q, want the wrapped handler's %q", body, "reached")
				}
				return
			}
			if !strings.Contains(body, tt.wantBody) || strings.Contains(body, "reached") {
				t.Errorf("body: got %q, want a refusal mentioning %q", body, tt.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("Content-Type: got %q, want text/plain", ct)
			}
			if got, want := rec.Header().Get("WWW-Authenticate") != "", tt.wantStatus == 401; got != want {
				t.Errorf("WWW-Authenticate present: got %v, want %v", got, want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func matches(got, want string) bool {
	if want == "" {
		return got == ""
	}
	return strings.Contains(got, want)
}

func describe(want string) string {
	if want == "" {
		return "no error"
	}
	return fmt.Sprintf("an error mentioning %q", want)
}
