package config

import (
	"cmp"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/runtime"
)

// Validate checks c as [Parse] would: server names usable in tool names,
// exactly one of command, url and fixture per server, frame limits in range, known
// engine and mode names, non-negative limits, a host:port listen address,
// canonical trusted hosts, at most one of BearerToken and BearerTokenEnv,
// and redaction rules that parse. Zero fields of CodeMode, and a zero MaxFrameBytes, are
// valid ("not configured"). The error is an *[Error].
func (c *Config) Validate() error {
	var p parser
	for _, name := range c.ServerNames() {
		path := "mcpServers." + name
		if msg := checkServerName(name); msg != "" {
			p.add(path, "%s", msg)
		}
		validateServer(&p, path, c.Servers[name])
	}
	validateCodeMode(&p, "codemode", c.CodeMode)
	if len(p.issues) > 0 {
		return &Error{Issues: p.issues}
	}
	return nil
}

// checkServerName returns why name cannot be a server name, or "".
func checkServerName(name string) string {
	if name == "" {
		return "a server name must not be empty"
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Sprintf("server name %q: only letters, digits, '_' and '-' are allowed (it becomes part of tool names mcp__<server>__<tool>)", name)
		}
	}
	if strings.Contains(name, "__") {
		return fmt.Sprintf("server name %q must not contain \"__\" (it separates the parts of mcp__<server>__<tool>)", name)
	}
	return ""
}

func validateServer(p *parser, path string, s Server) {
	if n := s.MaxFrameBytes; n != 0 && (n < MinFrameLimit || n > MaxFrameLimit) {
		p.add(join(path, "maxFrameBytes"), "%d bytes is out of range (want %dKiB to %dGiB; leave the key out for the default, %dMiB)",
			n, MinFrameLimit>>10, MaxFrameLimit>>30, DefaultFrameLimit>>20)
	}
	if s.Fixture != "" {
		validateFixtureServer(p, path, s)
		return
	}
	switch {
	case s.Command != "" && s.URL != "":
		p.add(path, "has both command and url; a server has exactly one (command: stdio, url: streamable HTTP)")
		return
	case s.Command == "" && s.URL == "":
		p.add(path, "needs a command (stdio server), a url (streamable-HTTP server) or a fixture (a recording)")
		return
	}
	want := TransportStdio
	if s.URL != "" {
		want = TransportHTTP
	}
	if s.Transport != "" && s.Transport != want {
		p.add(join(path, "type"), "%q does not match the server's %s", s.Transport, map[string]string{TransportStdio: "command", TransportHTTP: "url"}[want])
	}
	if want == TransportStdio {
		if len(s.Headers) > 0 {
			p.add(join(path, "headers"), "headers apply to HTTP servers only")
		}
		if strings.ContainsRune(s.Command, 0) {
			p.add(join(path, "command"), "contains a NUL byte")
		}
		for i, a := range s.Args {
			if strings.ContainsRune(a, 0) {
				p.add(fmt.Sprintf("%s.args[%d]", path, i), "contains a NUL byte")
			}
		}
		for _, k := range sortedKeys(s.Env) {
			if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(s.Env[k], 0) {
				p.add(join(path, "env"), "%q is not a valid environment variable", k)
			}
		}
		if strings.ContainsRune(s.Cwd, 0) {
			p.add(join(path, "cwd"), "contains a NUL byte")
		}
		return
	}
	if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
		p.add(path, "args, env and cwd apply to stdio servers only")
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.add(join(path, "url"), "%q is not an http(s) URL", s.URL)
	}
	for _, k := range sortedKeys(s.Headers) {
		if !validHeaderName(k) {
			p.add(join(path, "headers"), "%q is not a valid header name", k)
		} else if strings.ContainsAny(s.Headers[k], "\r\n\x00") {
			p.add(join(join(path, "headers"), k), "the value must not contain CR, LF or NUL")
		}
	}
}

// validateFixtureServer checks a server given as a recording: nothing of
// a process or a URL applies to it.
func validateFixtureServer(p *parser, path string, s Server) {
	if s.Command != "" || s.URL != "" {
		p.add(path, "has a fixture and a command or url; a server has exactly one of command, url and fixture")
		return
	}
	if s.Transport != "" && s.Transport != TransportFixture {
		p.add(join(path, "type"), "%q does not match the server's fixture", s.Transport)
	}
	if len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" || len(s.Headers) > 0 || s.Roots {
		p.add(path, "args, env, cwd, headers and roots do not apply to a fixture server")
	}
	if strings.ContainsRune(s.Fixture, 0) {
		p.add(join(path, "fixture"), "contains a NUL byte")
	}
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

func validateCodeMode(p *parser, path string, c CodeMode) {
	if c.Engine != "" && !runtime.KnownEngine(c.Engine) {
		p.add(join(path, "engine"), "%q is not an engine (want one of %q)", c.Engine, runtime.Engines())
	}
	if c.Mode != "" && !runtime.KnownMode(runtime.Mode(c.Mode)) {
		p.add(join(path, "mode"), "%q is not a mode (want one of %q)", c.Mode, runtime.Modes())
	}
	if c.TimeZone != "" {
		if err := runtime.CheckTimeZone(c.TimeZone); err != nil {
			p.add(join(path, "timeZone"), "%v", err)
		}
	}
	checkNonNegative(p, path, codeModeFields, &c)
	if per := cmp.Or(c.Memory, runtime.Limits{}.WithDefaults().MemoryBytes); c.MaxTotalMemoryBytes > 0 && c.MaxTotalMemoryBytes < per {
		p.add(join(path, "maxTotalMemoryBytes"), "%d bytes is less than one program's memory budget (%d bytes, codemode.memory): every program would be refused", c.MaxTotalMemoryBytes, per)
	}
	seen := map[string]bool{}
	for i, n := range c.Native {
		at := fmt.Sprintf("%s.native[%d]", path, i)
		switch {
		case n == "":
			p.add(at, "must not be empty")
		case seen[n]:
			p.add(at, "%q is listed twice", n)
		}
		seen[n] = true
	}
	if c.Listen != "" {
		if msg := checkListen(c.Listen); msg != "" {
			p.add(join(path, "listen"), "%s", msg)
		}
	}
	for i, h := range c.TrustedHosts {
		if msg := checkTrustedHost(h); msg != "" {
			p.add(fmt.Sprintf("%s.trustedHosts[%d]", path, i), "%s", msg)
		}
	}
	if c.BearerToken != "" && c.BearerTokenEnv != "" {
		p.add(join(path, "bearerToken"), "set bearerToken or bearerTokenEnv, not both")
	}
	if strings.ContainsAny(c.BearerToken, "\r\n\x00 ") {
		p.add(join(path, "bearerToken"), "must not contain spaces or control characters")
	}
	if strings.ContainsAny(c.BearerTokenEnv, "=\x00") {
		p.add(join(path, "bearerTokenEnv"), "%q is not an environment variable name", c.BearerTokenEnv)
	}
	for _, is := range policy.Check(c.Policy) {
		p.add(join(join(path, "policy"), is.Path), "%s", is.Message)
	}
	if c.Audit != (audit.Config{}) && c.Audit.Path == "" {
		p.add(join(join(path, "audit"), "path"), "the audit trail needs a path")
	}
	for i, r := range c.Redact {
		if err := redact.Check(r); err != nil {
			p.add(fmt.Sprintf("%s.redact[%d]", path, i), "%v", err)
		}
	}
}

func checkListen(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Sprintf("%q is not host:port (e.g. \"127.0.0.1:8080\")", addr)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || strconv.FormatUint(n, 10) != port {
		return fmt.Sprintf("%q: the port must be a number from 0 to 65535", addr)
	}
	if strings.ContainsAny(host, " /\x00") {
		return fmt.Sprintf("%q: %q is not a host", addr, host)
	}
	return ""
}

// checkTrustedHost returns why h is not a canonical host[:port], or "".
// Canonical means: lower case, no trailing dot, IPv6 in brackets, a port
// (if any) in decimal without leading zeros, nothing else.
func checkTrustedHost(h string) string {
	bad := func(why string) string {
		return fmt.Sprintf("%q is not a canonical host[:port] (%s)", h, why)
	}
	if h == "" {
		return bad("empty")
	}
	if strings.Contains(h, "://") || strings.ContainsAny(h, "/?#@ \t\r\n\x00") {
		return bad("a bare host[:port], without scheme, path or user")
	}
	host, port := h, ""
	if strings.HasPrefix(h, "[") {
		end := strings.Index(h, "]")
		if end < 0 {
			return bad("unclosed '['")
		}
		host = h[1:end]
		rest := h[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return bad("junk after ']'")
			}
			port = rest[1:]
			if port == "" {
				return bad("empty port")
			}
		}
		ip := net.ParseIP(host)
		if ip == nil || ip.To4() != nil || ip.String() != host {
			return bad("not a canonical IPv6 address")
		}
	} else {
		if i := strings.LastIndex(h, ":"); i >= 0 {
			host, port = h[:i], h[i+1:]
			if strings.Contains(host, ":") {
				return bad("an IPv6 address goes in brackets")
			}
			if port == "" {
				return bad("empty port")
			}
		}
		if host == "" || host != strings.ToLower(host) || strings.HasSuffix(host, ".") {
			return bad("want a lower-case host name without a trailing dot")
		}
		if ip := net.ParseIP(host); ip != nil && ip.String() != host {
			return bad("not a canonical IP address")
		}
		for _, r := range host {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_') {
				return bad(fmt.Sprintf("%q in host name", r))
			}
		}
	}
	if port != "" {
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || strconv.FormatUint(n, 10) != port || n == 0 {
			return bad("the port must be a number from 1 to 65535")
		}
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
