package httpfence

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// An authority is a parsed host[:port], as found in a Host header, an Origin
// or a trusted-host entry.
type authority struct {
	// host is a lowercase DNS name, a dotted IPv4 address, or an IPv6
	// address in its canonical text form, without brackets.
	host string
	// ip is host parsed, when host is an IP literal.
	ip netip.Addr
	// port is the decimal port, or "" when none was given.
	port string
}

// String returns the canonical host[:port] form, with IPv6 bracketed.
func (a authority) String() string {
	h := a.host
	if a.ip.Is6() {
		h = "[" + h + "]"
	}
	if a.port == "" {
		return h
	}
	return h + ":" + a.port
}

// portOr returns the port, or def when none was given.
func (a authority) portOr(def string) string {
	if a.port == "" {
		return def
	}
	return a.port
}

// isLoopback reports whether the host names this machine: "localhost" or a
// loopback IP. Other names that may resolve to loopback ("*.localhost",
// hosts-file entries) are not trusted: that would need a resolver, and a
// fence that cannot decide denies.
func (a authority) isLoopback() bool {
	if a.ip.IsValid() {
		return a.ip.IsLoopback()
	}
	return a.host == "localhost"
}

// parseAuthority parses host[:port]. It accepts any letter case (host names
// are case-insensitive, and some clients send them capitalised) but nothing
// else that a canonical form would spell differently: no scheme, path,
// userinfo, whitespace, trailing dot, zone, unbracketed IPv6, or port with
// leading zeros. Anything it cannot read is an error, so the fence fails
// closed.
func parseAuthority(s string) (authority, error) {
	if s == "" {
		return authority{}, errors.New("empty")
	}
	for _, c := range s {
		switch {
		case c <= ' ' || c == 0x7f:
			return authority{}, errors.New("contains whitespace or a control character")
		case c >= 0x80:
			return authority{}, errors.New("contains non-ASCII characters; use the punycode (xn--) form")
		case strings.ContainsRune("/?#@\\", c):
			if strings.Contains(s, "://") {
				return authority{}, errors.New("has a scheme; want host[:port]")
			}
			return authority{}, fmt.Errorf("contains %q; want host[:port] with no path, query or userinfo", c)
		}
	}
	s = strings.ToLower(s)

	var a authority
	hostPart, portPart, hasPort := s, "", false
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return authority{}, errors.New("unclosed '['")
		}
		hostPart = s[1:end]
		switch rest := s[end+1:]; {
		case rest == "":
		case rest[0] == ':':
			portPart, hasPort = rest[1:], true
		default:
			return authority{}, fmt.Errorf("unexpected %q after ']'", rest)
		}
		ip, err := netip.ParseAddr(hostPart)
		if err != nil || !ip.Is6() || ip.Zone() != "" {
			return authority{}, fmt.Errorf("%q is not an IPv6 address without zone", hostPart)
		}
		if ip.Is4In6() {
			// ::ffff:127.0.0.1 would smuggle an IPv4 address past checks
			// written for IPv6; browsers rewrite it anyway.
			return authority{}, fmt.Errorf("%q is an IPv4-mapped address; use the IPv4 form", hostPart)
		}
		if ip.String() != hostPart {
			return authority{}, fmt.Errorf("IPv6 address %q is not in canonical form %q", hostPart, ip.String())
		}
		a.host, a.ip = hostPart, ip
	} else {
		switch strings.Count(s, ":") {
		case 0:
		case 1:
			hostPart, portPart, _ = strings.Cut(s, ":")
			hasPort = true
		default:
			return authority{}, errors.New("IPv6 address must be in brackets")
		}
		if err := checkHost(hostPart); err != nil {
			return authority{}, err
		}
		a.host = hostPart
		if ip, err := netip.ParseAddr(hostPart); err == nil {
			a.ip = ip
		}
	}
	if hasPort {
		if err := checkPort(portPart); err != nil {
			return authority{}, err
		}
		a.port = portPart
	}
	return a, nil
}

// checkHost accepts a lowercase DNS name (letters, digits, hyphens; labels
// of 1–63 characters; no trailing dot) or a dotted-decimal IPv4 address.
func checkHost(h string) error {
	if h == "" {
		return errors.New("empty host")
	}
	if len(h) > 253 {
		return errors.New("host longer than 253 characters")
	}
	if strings.HasSuffix(h, ".") {
		return errors.New("trailing dot")
	}
	labels := strings.Split(h, ".")
	// A name whose last label is numeric is read as an IPv4 address by
	// browsers (WHATWG URL), so it must be one, in the plain dotted form:
	// "127.1" or "0x7f.0.0.1" would otherwise be a second spelling of
	// loopback that the trusted-host list cannot see.
	if last := labels[len(labels)-1]; (last != "" && strings.Trim(last, "0123456789") == "") || strings.HasPrefix(last, "0x") {
		ip, err := netip.ParseAddr(h)
		if err != nil || !ip.Is4() {
			return fmt.Errorf("%q is neither a host name nor a dotted-decimal IPv4 address", h)
		}
		return nil
	}
	for _, l := range labels {
		if l == "" {
			return errors.New("empty label")
		}
		if len(l) > 63 {
			return fmt.Errorf("label %q longer than 63 characters", l)
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Errorf("label %q starts or ends with '-'", l)
		}
		for _, c := range l {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return fmt.Errorf("label %q contains %q", l, c)
			}
		}
	}
	return nil
}

// checkPort accepts a decimal port from 1 to 65535 without leading zeros.
func checkPort(p string) error {
	n, err := strconv.Atoi(p)
	if err != nil || strings.Trim(p, "0123456789") != "" {
		return fmt.Errorf("port %q is not a number", p)
	}
	if n < 1 || n > 65535 {
		return fmt.Errorf("port %d out of range 1–65535", n)
	}
	if p[0] == '0' {
		return fmt.Errorf("port %q has leading zeros", p)
	}
	return nil
}
