// Package httpfence is the front fence of codemode's HTTP server
// (docs/contract.md#sandbox): it decides, before any MCP handling, whether
// a request may reach the server at all.
//
// # Rules
//
// Start-up ([Check], and [Wrap] before it wraps anything):
//
//   - Binding to an address other than loopback is refused unless a bearer
//     token is configured.
//   - Every trusted-host entry must be canonical host[:port]: lowercase, no
//     scheme, path, whitespace or trailing dot, a port from 1 to 65535
//     without leading zeros, IPv6 in brackets and in canonical form. The
//     error names the first bad entry.
//
// Every request, in this order:
//
//  1. Host must be "localhost" or a loopback IP with the listen port, or
//     match a trusted host; else 403. This is the DNS-rebinding fence: a
//     page on attacker.example whose name is made to resolve to 127.0.0.1
//     still sends "Host: attacker.example".
//  2. Sec-Fetch-Site: cross-site is refused with 403: browsers send it for
//     requests a page on another site makes.
//  3. Origin, when present, must be http:// or https:// followed by the
//     same authority as Host (ports compared after filling in the scheme's
//     default); else 403. "Origin: null" (sandboxed frames, file: pages) is
//     refused too.
//  4. When a bearer token is configured, "Authorization: Bearer <token>" is
//     required; else 401.
//
// Refusals are plain text naming the rule that refused.
//
// The fence is reachability policy, not authentication: it keeps browsers
// and rebound names away from a loopback server. The bearer token is the
// only thing here that authenticates, and only serves a non-loopback bind.
package httpfence

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Config is what the fence needs to know about the server it guards.
type Config struct {
	// Listen is the address the server binds, as host:port: "127.0.0.1:8080",
	// "[::1]:8080", "localhost:8080". An empty host ("":8080) means every
	// interface. [Check] accepts port 0; [Wrap] needs the port actually bound
	// (pass the listener's Addr().String()), because Host is checked against it.
	Listen string
	// TrustedHosts are extra host[:port] values that Host may carry, for a
	// server reached under a name (behind a proxy, on a LAN). An entry
	// without a port matches that host on any port. Entries must be
	// canonical. If empty, only loopback names are accepted.
	TrustedHosts []string
	// BearerToken, if non-empty, is required on every request as
	// "Authorization: Bearer <token>", and allows a non-loopback Listen.
	BearerToken string
}

// Check validates cfg at start-up: the listen address, the bind rule and
// every trusted-host entry. It returns the first problem found.
func Check(cfg Config) error {
	_, err := check(cfg)
	return err
}

// Wrap returns h behind the fence described by cfg, or an error if cfg
// fails [Check] or Listen has no concrete port.
//
// The returned handler is safe for concurrent use and never calls h for a
// refused request.
func Wrap(h http.Handler, cfg Config) (http.Handler, error) {
	f, err := check(cfg)
	if err != nil {
		return nil, err
	}
	if f.listenPort == "0" {
		return nil, fmt.Errorf("listen address %q: port 0; pass the address the listener actually bound", cfg.Listen)
	}
	f.next = h
	return f, nil
}

type fence struct {
	next       http.Handler
	listenPort string
	trusted    []authority
	tokenHash  *[sha256.Size]byte // nil when no token is required
}

func check(cfg Config) (*fence, error) {
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", cfg.Listen, err)
	}
	if port != "0" {
		if err := checkPort(port); err != nil {
			return nil, fmt.Errorf("listen address %q: %w", cfg.Listen, err)
		}
	}
	if !loopbackBind(host) && cfg.BearerToken == "" {
		return nil, fmt.Errorf("listen address %q is not loopback: binding to it needs a bearer token", cfg.Listen)
	}
	f := &fence{listenPort: port}
	for _, entry := range cfg.TrustedHosts {
		a, err := parseTrusted(entry)
		if err != nil {
			return nil, fmt.Errorf("trusted host %q: %w", entry, err)
		}
		f.trusted = append(f.trusted, a)
	}
	if cfg.BearerToken != "" {
		// Comparing digests keeps the comparison constant-time in the
		// token's length too, which ConstantTimeCompare alone would leak.
		sum := sha256.Sum256([]byte(cfg.BearerToken))
		f.tokenHash = &sum
	}
	return f, nil
}

// loopbackBind reports whether binding host listens on loopback only. An
// empty host or an unspecified address binds every interface; a name other
// than "localhost" may resolve anywhere.
func loopbackBind(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.IsLoopback()
}

// parseTrusted parses a trusted-host entry, which must already be in
// canonical form.
func parseTrusted(entry string) (authority, error) {
	a, err := parseAuthority(entry)
	if err != nil {
		return authority{}, fmt.Errorf("%w; want canonical host[:port]", err)
	}
	if c := a.String(); c != entry {
		return authority{}, fmt.Errorf("not canonical; write %q", c)
	}
	return a, nil
}

func (f *fence) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if status, msg := f.refuse(r); status != 0 {
		if status == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="codemode"`)
		}
		http.Error(w, http.StatusText(status)+": "+msg, status)
		return
	}
	f.next.ServeHTTP(w, r)
}

// refuse returns the status and reason for refusing r, or 0 to let it pass.
func (f *fence) refuse(r *http.Request) (int, string) {
	defaultPort := "80"
	if r.TLS != nil {
		defaultPort = "443"
	}

	host, err := parseAuthority(r.Host)
	if err != nil {
		return http.StatusForbidden, fmt.Sprintf("Host %q: %v (DNS-rebinding fence)", r.Host, err)
	}
	if !f.hostAllowed(host, defaultPort) {
		return http.StatusForbidden, fmt.Sprintf("Host %q is neither a loopback name with port %s nor a trusted host (DNS-rebinding fence)", r.Host, f.listenPort)
	}

	for _, v := range r.Header.Values("Sec-Fetch-Site") {
		if strings.EqualFold(strings.TrimSpace(v), "cross-site") {
			return http.StatusForbidden, "Sec-Fetch-Site: cross-site requests are refused"
		}
	}

	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		if msg := checkOrigin(origins, host, defaultPort); msg != "" {
			return http.StatusForbidden, msg
		}
	}

	if f.tokenHash != nil && !f.tokenOK(r) {
		return http.StatusUnauthorized, "missing or wrong bearer token (want Authorization: Bearer <token>)"
	}
	return 0, ""
}

func (f *fence) hostAllowed(host authority, defaultPort string) bool {
	if host.isLoopback() && host.portOr(defaultPort) == f.listenPort {
		return true
	}
	for _, t := range f.trusted {
		if t.host == host.host && (t.port == "" || t.port == host.portOr(defaultPort)) {
			return true
		}
	}
	return false
}

// checkOrigin returns why the Origin values do not match the request's
// host authority, or "" if they do.
func checkOrigin(origins []string, host authority, defaultPort string) string {
	if len(origins) != 1 {
		return fmt.Sprintf("%d Origin headers; want at most one", len(origins))
	}
	o := origins[0]
	if o == "null" {
		return "Origin: null is refused (an opaque origin cannot be matched to the host)"
	}
	a, err := parseOrigin(o)
	if err != nil {
		return fmt.Sprintf("Origin %q: %v", o, err)
	}
	if a.auth.host != host.host || a.auth.portOr(a.defaultPort) != host.portOr(defaultPort) {
		return fmt.Sprintf("Origin %q does not match the host authority %q", o, host.String())
	}
	return ""
}

type origin struct {
	auth        authority
	defaultPort string
}

// parseOrigin parses an Origin header: http or https, "://", authority,
// nothing after. Either scheme is accepted: behind a TLS-terminating proxy
// the browser's scheme is not the one this server sees, and the host is
// what the fence is about.
func parseOrigin(s string) (origin, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return origin{}, errors.New("want scheme://host[:port]")
	}
	var def string
	switch strings.ToLower(scheme) {
	case "http":
		def = "80"
	case "https":
		def = "443"
	default:
		return origin{}, fmt.Errorf("scheme %q; want http or https", scheme)
	}
	a, err := parseAuthority(rest)
	if err != nil {
		return origin{}, err
	}
	return origin{auth: a, defaultPort: def}, nil
}

func (f *fence) tokenOK(r *http.Request) bool {
	vals := r.Header.Values("Authorization")
	if len(vals) != 1 {
		return false
	}
	scheme, token, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(token)))
	return subtle.ConstantTimeCompare(sum[:], f.tokenHash[:]) == 1
}
