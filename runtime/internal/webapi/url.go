package webapi

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// A WHATWG URL parser (https://url.spec.whatwg.org/#concept-basic-url-parser).
//
// Go's net/url is not used: it follows RFC 3986, which the WHATWG standard
// departs from in ways programs see — backslashes as slashes and tabs and
// newlines removed in special URLs, IPv4 hosts in hex, octal or fewer than
// four parts ("http://0x7f.1" is http://127.0.0.1/), default ports dropped,
// dot segments removed including their percent-encoded forms (%2e), hosts
// lowercased and IDNA-mapped, different percent-encode sets per component,
// and opaque paths for non-special schemes. Only idna from x/net is used,
// for domain to ASCII.

type url struct {
	scheme, username, password string
	host                       *string
	port                       int // -1: none
	opaque                     bool
	path                       []string // when !opaque
	opaquePath                 string
	query, fragment            *string
}

var specialPorts = map[string]int{"ftp": 21, "file": -1, "http": 80, "https": 443, "ws": 80, "wss": 443}

func isSpecial(s string) bool { _, ok := specialPorts[s]; return ok }

type urlError struct{ msg string }

func (e *urlError) Error() string { return e.msg }

func strp(s string) *string { return &s }

// Percent-encode sets.
func c0Set(r rune) bool { return r < 0x20 || r > 0x7e }
func fragmentSet(r rune) bool {
	return c0Set(r) || r == ' ' || r == '"' || r == '<' || r == '>' || r == '`'
}
func querySet(r rune) bool {
	return c0Set(r) || r == ' ' || r == '"' || r == '#' || r == '<' || r == '>'
}
func specialQuerySet(r rune) bool { return querySet(r) || r == '\'' }
func pathSet(r rune) bool {
	return querySet(r) || r == '?' || r == '^' || r == '`' || r == '{' || r == '}'
}
func userinfoSet(r rune) bool {
	return pathSet(r) || r == '/' || r == ':' || r == ';' || r == '=' || r == '@' || (r >= '[' && r <= ']') || r == '|'
}

const upperhex = "0123456789ABCDEF"

func pctEncode(b *strings.Builder, r rune, set func(rune) bool) {
	if !set(r) {
		b.WriteRune(r)
		return
	}
	var buf [4]byte
	if r == utf8.RuneError {
		r = 0xfffd
	}
	n := utf8.EncodeRune(buf[:], r)
	for _, c := range buf[:n] {
		b.WriteByte('%')
		b.WriteByte(upperhex[c>>4])
		b.WriteByte(upperhex[c&15])
	}
}

func pctEncodeString(s string, set func(rune) bool) string {
	var b strings.Builder
	for _, r := range s {
		pctEncode(&b, r, set)
	}
	return b.String()
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func pctDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0 {
			out = append(out, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
			continue
		}
		out = append(out, s[i])
	}
	return out
}

func isASCIIAlpha(r rune) bool { return (r|0x20) >= 'a' && (r|0x20) <= 'z' }
func isASCIIDigit(r rune) bool { return r >= '0' && r <= '9' }
func isASCIIAlnum(r rune) bool { return isASCIIAlpha(r) || isASCIIDigit(r) }

func isWindowsDriveLetter(s []rune, normalized bool) bool {
	if len(s) != 2 || !isASCIIAlpha(s[0]) {
		return false
	}
	return s[1] == ':' || (!normalized && s[1] == '|')
}

func startsWithDrive(r []rune) bool {
	if len(r) < 2 || !isWindowsDriveLetter(r[:2], false) {
		return false
	}
	if len(r) == 2 {
		return true
	}
	switch r[2] {
	case '/', '\\', '?', '#':
		return true
	}
	return false
}

func isSingleDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func isDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

func (u *url) shortenPath() {
	if u.scheme == "file" && len(u.path) == 1 && isWindowsDriveLetter([]rune(u.path[0]), true) {
		return
	}
	if len(u.path) > 0 {
		u.path = u.path[:len(u.path)-1]
	}
}

func (u *url) includesCredentials() bool { return u.username != "" || u.password != "" }

const (
	stSchemeStart = iota
	stScheme
	stNoScheme
	stSpecialRelativeOrAuthority
	stPathOrAuthority
	stRelative
	stRelativeSlash
	stSpecialAuthoritySlashes
	stSpecialAuthorityIgnoreSlashes
	stAuthority
	stHost
	stPort
	stFile
	stFileSlash
	stFileHost
	stPathStart
	stPath
	stOpaquePath
	stQuery
	stFragment
)

var errInvalid = &urlError{"Invalid URL"}

// parseURL is the basic URL parser without a state override.
func parseURL(input string, base *url) (*url, error) {
	// Strip leading/trailing C0 control or space; remove tab and newline.
	input = strings.TrimFunc(input, func(r rune) bool { return r <= 0x20 })
	input = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, input)
	in := []rune(input)
	u := &url{port: -1}
	state := stSchemeStart
	var buf strings.Builder
	atSign, insideBrackets, passwordToken := false, false, false
	for p := 0; p <= len(in); p++ {
		c := rune(-1) // EOF
		if p < len(in) {
			c = in[p]
		}
		remaining := func(i int) rune {
			if p+i < len(in) {
				return in[p+i]
			}
			return -1
		}
		switch state {
		case stSchemeStart:
			if c >= 0 && isASCIIAlpha(c) {
				buf.WriteRune(c | 0x20)
				state = stScheme
			} else {
				state = stNoScheme
				p--
			}
		case stScheme:
			if c >= 0 && (isASCIIAlnum(c) || c == '+' || c == '-' || c == '.') {
				if c < 0x80 && c >= 'A' && c <= 'Z' {
					c |= 0x20
				}
				buf.WriteRune(c)
			} else if c == ':' {
				u.scheme = buf.String()
				buf.Reset()
				if u.scheme == "file" {
					state = stFile
				} else if isSpecial(u.scheme) && base != nil && base.scheme == u.scheme {
					state = stSpecialRelativeOrAuthority
				} else if isSpecial(u.scheme) {
					state = stSpecialAuthoritySlashes
				} else if remaining(1) == '/' {
					state = stPathOrAuthority
					p++
				} else {
					u.opaque = true
					state = stOpaquePath
				}
			} else {
				buf.Reset()
				state = stNoScheme
				p = -1
			}
		case stNoScheme:
			if base == nil || (base.opaque && c != '#') {
				return nil, errInvalid
			} else if base.opaque && c == '#' {
				u.scheme, u.opaque, u.opaquePath = base.scheme, true, base.opaquePath
				u.query = base.query
				u.fragment = strp("")
				state = stFragment
			} else if base.scheme != "file" {
				state = stRelative
				p--
			} else {
				state = stFile
				p--
			}
		case stSpecialRelativeOrAuthority:
			if c == '/' && remaining(1) == '/' {
				state = stSpecialAuthorityIgnoreSlashes
				p++
			} else {
				state = stRelative
				p--
			}
		case stPathOrAuthority:
			if c == '/' {
				state = stAuthority
			} else {
				state = stPath
				p--
			}
		case stRelative:
			u.scheme = base.scheme
			if c == '/' {
				state = stRelativeSlash
			} else if isSpecial(u.scheme) && c == '\\' {
				state = stRelativeSlash
			} else {
				u.username, u.password, u.host, u.port = base.username, base.password, base.host, base.port
				u.path = append([]string(nil), base.path...)
				u.query = base.query
				if c == '?' {
					u.query = strp("")
					state = stQuery
				} else if c == '#' {
					u.fragment = strp("")
					state = stFragment
				} else if c != -1 {
					u.query = nil
					u.shortenPath()
					state = stPath
					p--
				}
			}
		case stRelativeSlash:
			if isSpecial(u.scheme) && (c == '/' || c == '\\') {
				state = stSpecialAuthorityIgnoreSlashes
			} else if c == '/' {
				state = stAuthority
			} else {
				u.username, u.password, u.host, u.port = base.username, base.password, base.host, base.port
				state = stPath
				p--
			}
		case stSpecialAuthoritySlashes:
			if c == '/' && remaining(1) == '/' {
				state = stSpecialAuthorityIgnoreSlashes
				p++
			} else {
				state = stSpecialAuthorityIgnoreSlashes
				p--
			}
		case stSpecialAuthorityIgnoreSlashes:
			if c != '/' && c != '\\' {
				state = stAuthority
				p--
			}
		case stAuthority:
			if c == '@' {
				if atSign {
					s := "%40" + buf.String()
					buf.Reset()
					buf.WriteString(s)
				}
				atSign = true
				for _, r := range buf.String() {
					if r == ':' && !passwordToken {
						passwordToken = true
						continue
					}
					var e strings.Builder
					pctEncode(&e, r, userinfoSet)
					if passwordToken {
						u.password += e.String()
					} else {
						u.username += e.String()
					}
				}
				buf.Reset()
			} else if c == -1 || c == '/' || c == '?' || c == '#' || (isSpecial(u.scheme) && c == '\\') {
				if atSign && buf.Len() == 0 {
					return nil, errInvalid
				}
				p -= utf8.RuneCountInString(buf.String()) + 1
				buf.Reset()
				state = stHost
			} else {
				buf.WriteRune(c)
			}
		case stHost:
			if c == ':' && !insideBrackets {
				if buf.Len() == 0 {
					return nil, errInvalid
				}
				h, err := parseHost(buf.String(), !isSpecial(u.scheme))
				if err != nil {
					return nil, err
				}
				u.host = &h
				buf.Reset()
				state = stPort
			} else if c == -1 || c == '/' || c == '?' || c == '#' || (isSpecial(u.scheme) && c == '\\') {
				p--
				if isSpecial(u.scheme) && buf.Len() == 0 {
					return nil, errInvalid
				}
				h, err := parseHost(buf.String(), !isSpecial(u.scheme))
				if err != nil {
					return nil, err
				}
				u.host = &h
				buf.Reset()
				state = stPathStart
			} else {
				if c == '[' {
					insideBrackets = true
				}
				if c == ']' {
					insideBrackets = false
				}
				buf.WriteRune(c)
			}
		case stPort:
			if c >= 0 && isASCIIDigit(c) {
				buf.WriteRune(c)
			} else if c == -1 || c == '/' || c == '?' || c == '#' || (isSpecial(u.scheme) && c == '\\') {
				if buf.Len() != 0 {
					n, err := strconv.Atoi(buf.String())
					if err != nil || n > 65535 {
						return nil, errInvalid
					}
					if dp, ok := specialPorts[u.scheme]; ok && dp == n {
						u.port = -1
					} else {
						u.port = n
					}
					buf.Reset()
				}
				state = stPathStart
				p--
			} else {
				return nil, errInvalid
			}
		case stFile:
			u.scheme = "file"
			u.host = strp("")
			if c == '/' || c == '\\' {
				state = stFileSlash
			} else if base != nil && base.scheme == "file" {
				u.host = base.host
				u.path = append([]string(nil), base.path...)
				u.query = base.query
				if c == '?' {
					u.query = strp("")
					state = stQuery
				} else if c == '#' {
					u.fragment = strp("")
					state = stFragment
				} else if c != -1 {
					u.query = nil
					if !startsWithDrive(in[p:]) {
						u.shortenPath()
					} else {
						u.path = nil
					}
					state = stPath
					p--
				}
			} else {
				state = stPath
				p--
			}
		case stFileSlash:
			if c == '/' || c == '\\' {
				state = stFileHost
			} else {
				if base != nil && base.scheme == "file" {
					u.host = base.host
					if !startsWithDrive(in[p:]) && len(base.path) > 0 && isWindowsDriveLetter([]rune(base.path[0]), true) {
						u.path = append(u.path, base.path[0])
					}
				}
				state = stPath
				p--
			}
		case stFileHost:
			if c == -1 || c == '/' || c == '\\' || c == '?' || c == '#' {
				p--
				if isWindowsDriveLetter([]rune(buf.String()), false) {
					state = stPath
				} else if buf.Len() == 0 {
					u.host = strp("")
					state = stPathStart
				} else {
					h, err := parseHost(buf.String(), false)
					if err != nil {
						return nil, err
					}
					if h == "localhost" {
						h = ""
					}
					u.host = &h
					buf.Reset()
					state = stPathStart
				}
			} else {
				buf.WriteRune(c)
			}
		case stPathStart:
			if isSpecial(u.scheme) {
				state = stPath
				if c != '/' && c != '\\' {
					p--
				}
			} else if c == '?' {
				u.query = strp("")
				state = stQuery
			} else if c == '#' {
				u.fragment = strp("")
				state = stFragment
			} else if c != -1 {
				state = stPath
				if c != '/' {
					p--
				}
			}
		case stPath:
			if c == -1 || c == '/' || (isSpecial(u.scheme) && c == '\\') || c == '?' || c == '#' {
				seg := buf.String()
				slash := c == '/' || (isSpecial(u.scheme) && c == '\\')
				if isDoubleDot(seg) {
					u.shortenPath()
					if !slash {
						u.path = append(u.path, "")
					}
				} else if isSingleDot(seg) && !slash {
					u.path = append(u.path, "")
				} else if !isSingleDot(seg) {
					if u.scheme == "file" && len(u.path) == 0 && isWindowsDriveLetter([]rune(seg), false) {
						r := []rune(seg)
						seg = string(r[0]) + ":"
					}
					u.path = append(u.path, seg)
				}
				buf.Reset()
				if c == '?' {
					u.query = strp("")
					state = stQuery
				}
				if c == '#' {
					u.fragment = strp("")
					state = stFragment
				}
			} else {
				pctEncode(&buf, c, pathSet)
			}
		case stOpaquePath:
			if c == '?' {
				u.opaquePath = buf.String()
				buf.Reset()
				u.query = strp("")
				state = stQuery
			} else if c == '#' {
				u.opaquePath = buf.String()
				buf.Reset()
				u.fragment = strp("")
				state = stFragment
			} else if c == ' ' && (remaining(1) == '?' || remaining(1) == '#') {
				buf.WriteString("%20")
			} else if c != -1 {
				pctEncode(&buf, c, c0Set)
			} else {
				u.opaquePath = buf.String()
				buf.Reset()
			}
		case stQuery:
			if c == '#' || c == -1 {
				set := querySet
				if isSpecial(u.scheme) {
					set = specialQuerySet
				}
				*u.query += pctEncodeString(buf.String(), set)
				buf.Reset()
				if c == '#' {
					u.fragment = strp("")
					state = stFragment
				}
			} else {
				buf.WriteRune(c)
			}
		case stFragment:
			if c != -1 {
				pctEncode(&buf, c, fragmentSet)
			} else {
				*u.fragment += buf.String()
				buf.Reset()
			}
		}
	}
	return u, nil
}

func forbiddenHost(r rune) bool {
	switch r {
	case 0, '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

func forbiddenDomain(r rune) bool {
	return forbiddenHost(r) || (r >= 0 && r <= 0x1f) || r == '%' || r == 0x7f
}

var idnaProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false), idna.CheckHyphens(false), idna.StrictDomainName(false), idna.VerifyDNSLength(false))

func parseHost(input string, opaque bool) (string, error) {
	if strings.HasPrefix(input, "[") {
		if !strings.HasSuffix(input, "]") {
			return "", errInvalid
		}
		a, err := parseIPv6(input[1 : len(input)-1])
		if err != nil {
			return "", err
		}
		return "[" + serializeIPv6(a) + "]", nil
	}
	if opaque {
		for _, r := range input {
			if forbiddenHost(r) {
				return "", errInvalid
			}
		}
		return pctEncodeString(input, c0Set), nil
	}
	domain := string(pctDecode(input))
	if !utf8.ValidString(domain) {
		domain = strings.ToValidUTF8(domain, "\uFFFD")
	}
	ascii, err := idnaProfile.ToASCII(domain)
	if err != nil || ascii == "" {
		return "", errInvalid
	}
	ascii = strings.ToLower(ascii)
	for _, r := range ascii {
		if forbiddenDomain(r) {
			return "", errInvalid
		}
	}
	if endsInNumber(ascii) {
		v, err := parseIPv4(ascii)
		if err != nil {
			return "", err
		}
		return strconv.Itoa(int(v>>24)) + "." + strconv.Itoa(int(v>>16&255)) + "." + strconv.Itoa(int(v>>8&255)) + "." + strconv.Itoa(int(v&255)), nil
	}
	return ascii, nil
}

func endsInNumber(s string) bool {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" {
		all := true
		for _, r := range last {
			if !isASCIIDigit(r) {
				all = false
			}
		}
		if all {
			return true
		}
	}
	_, ok := ipv4Number(last)
	return ok
}

func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s, base = s[2:], 16
	} else if len(s) >= 2 && s[0] == '0' {
		s, base = s[1:], 8
	}
	if s == "" {
		return 0, true
	}
	var v uint64
	for _, c := range []byte(s) {
		d := unhex(c)
		if d < 0 || d >= base {
			return 0, false
		}
		v = v*uint64(base) + uint64(d)
		if v > math.MaxUint32*256 {
			v = math.MaxUint32 * 256
		}
	}
	return v, true
}

func parseIPv4(s string) (uint64, error) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return 0, errInvalid
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return 0, errInvalid
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return 0, errInvalid
		}
	}
	last := nums[len(nums)-1]
	if last >= uint64(1)<<(8*(5-len(nums))) {
		return 0, errInvalid
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v += n << (8 * (3 - i))
	}
	return v, nil
}

func parseIPv6(s string) ([8]uint16, error) {
	var a [8]uint16
	in := []rune(s)
	piece, compress := 0, -1
	p := 0
	at := func(i int) rune {
		if i < len(in) {
			return in[i]
		}
		return -1
	}
	if at(p) == ':' {
		if at(p+1) != ':' {
			return a, errInvalid
		}
		p += 2
		piece++
		compress = piece
	}
	for at(p) != -1 {
		if piece == 8 {
			return a, errInvalid
		}
		if at(p) == ':' {
			if compress != -1 {
				return a, errInvalid
			}
			p++
			piece++
			compress = piece
			continue
		}
		value, length := 0, 0
		for length < 4 && at(p) >= 0 && at(p) < 128 && unhex(byte(at(p))) >= 0 {
			value = value*16 + unhex(byte(at(p)))
			p++
			length++
		}
		if at(p) == '.' {
			if length == 0 {
				return a, errInvalid
			}
			p -= length
			if piece > 6 {
				return a, errInvalid
			}
			seen := 0
			for at(p) != -1 {
				ipv4 := -1
				if seen > 0 {
					if at(p) == '.' && seen < 4 {
						p++
					} else {
						return a, errInvalid
					}
				}
				if !isASCIIDigit(at(p)) {
					return a, errInvalid
				}
				for at(p) >= 0 && isASCIIDigit(at(p)) {
					n := int(at(p) - '0')
					if ipv4 == -1 {
						ipv4 = n
					} else if ipv4 == 0 {
						return a, errInvalid
					} else {
						ipv4 = ipv4*10 + n
					}
					if ipv4 > 255 {
						return a, errInvalid
					}
					p++
				}
				a[piece] = a[piece]*0x100 + uint16(ipv4)
				seen++
				if seen == 2 || seen == 4 {
					piece++
				}
			}
			if seen != 4 {
				return a, errInvalid
			}
			break
		} else if at(p) == ':' {
			p++
			if at(p) == -1 {
				return a, errInvalid
			}
		} else if at(p) != -1 {
			return a, errInvalid
		}
		a[piece] = uint16(value)
		piece++
	}
	if compress != -1 {
		swaps := piece - compress
		piece = 7
		for piece != 0 && swaps > 0 {
			a[piece], a[compress+swaps-1] = a[compress+swaps-1], a[piece]
			piece--
			swaps--
		}
	} else if piece != 8 {
		return a, errInvalid
	}
	return a, nil
}

func serializeIPv6(a [8]uint16) string {
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if a[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && a[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	var b strings.Builder
	ignore0 := false
	for i := 0; i < 8; i++ {
		if ignore0 && a[i] == 0 {
			continue
		}
		ignore0 = false
		if best == i {
			if i == 0 {
				b.WriteString("::")
			} else {
				b.WriteString(":")
			}
			ignore0 = true
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(a[i]), 16))
		if i != 7 {
			b.WriteString(":")
		}
	}
	return b.String()
}

// Serializations the URL object's getters return.

func (u *url) pathname() string {
	if u.opaque {
		return u.opaquePath
	}
	var b strings.Builder
	for _, s := range u.path {
		b.WriteByte('/')
		b.WriteString(s)
	}
	return b.String()
}

func (u *url) hostString() string {
	if u.host == nil {
		return ""
	}
	if u.port >= 0 {
		return *u.host + ":" + strconv.Itoa(u.port)
	}
	return *u.host
}

func (u *url) href() string {
	var b strings.Builder
	b.WriteString(u.scheme)
	b.WriteByte(':')
	if u.host != nil {
		b.WriteString("//")
		if u.includesCredentials() {
			b.WriteString(u.username)
			if u.password != "" {
				b.WriteByte(':')
				b.WriteString(u.password)
			}
			b.WriteByte('@')
		}
		b.WriteString(u.hostString())
	} else if !u.opaque && len(u.path) > 1 && u.path[0] == "" {
		b.WriteString("/.")
	}
	b.WriteString(u.pathname())
	if u.query != nil {
		b.WriteByte('?')
		b.WriteString(*u.query)
	}
	if u.fragment != nil {
		b.WriteByte('#')
		b.WriteString(*u.fragment)
	}
	return b.String()
}

func (u *url) origin() string {
	switch u.scheme {
	case "http", "https", "ws", "wss", "ftp":
		return u.scheme + "://" + u.hostString()
	case "blob":
		if inner, err := parseURL(u.pathname(), nil); err == nil && (inner.scheme == "http" || inner.scheme == "https") {
			return inner.origin()
		}
	}
	return "null"
}

// record is what the JavaScript URL object keeps: the components its
// getters return.
func (u *url) record() map[string]any {
	search, hash := "", ""
	if u.query != nil && *u.query != "" {
		search = "?" + *u.query
	}
	if u.fragment != nil && *u.fragment != "" {
		hash = "#" + *u.fragment
	}
	port := ""
	if u.port >= 0 {
		port = strconv.Itoa(u.port)
	}
	hostname := ""
	if u.host != nil {
		hostname = *u.host
	}
	return map[string]any{
		"href": u.href(), "origin": u.origin(), "protocol": u.scheme + ":",
		"username": u.username, "password": u.password,
		"host": u.hostString(), "hostname": hostname, "port": port,
		"pathname": u.pathname(), "search": search, "hash": hash,
		"query": u.query != nil,
	}
}

// prefix is the href up to the path: scheme, then authority if any.
func (u *url) prefix() string {
	s := u.scheme + ":"
	if u.host != nil {
		s += "//"
		if u.includesCredentials() {
			s += u.username
			if u.password != "" {
				s += ":" + u.password
			}
			s += "@"
		}
		s += u.hostString()
	}
	return s
}

func (u *url) tail() string {
	s := ""
	if u.query != nil {
		s += "?" + *u.query
	}
	if u.fragment != nil {
		s += "#" + *u.fragment
	}
	return s
}

// set applies one of the URL object's setters. It returns u unchanged
// where the standard says the setter does nothing; the setters other than
// href re-parse a rebuilt href, which matches the state-override parse
// for the values programs use (see docs/engines.md).
func (u *url) set(field, v string) (*url, error) {
	reparse := func(s string) *url {
		if n, err := parseURL(s, nil); err == nil {
			return n
		}
		return u
	}
	noAuthority := u.host == nil || *u.host == "" || u.scheme == "file"
	switch field {
	case "href":
		n, err := parseURL(v, nil)
		if err != nil {
			return nil, &urlError{"Invalid URL"}
		}
		return n, nil
	case "protocol":
		s, _, _ := strings.Cut(v, ":")
		s = strings.ToLower(s)
		if s == "" || !isASCIIAlpha(rune(s[0])) {
			return u, nil
		}
		for _, r := range s {
			if !(isASCIIAlnum(r) || r == '+' || r == '-' || r == '.') {
				return u, nil
			}
		}
		if isSpecial(s) != isSpecial(u.scheme) || (s == "file" && (u.includesCredentials() || u.port >= 0)) ||
			(u.scheme == "file" && u.host != nil && *u.host == "") {
			return u, nil
		}
		n := *u
		n.scheme = s
		if dp, ok := specialPorts[s]; ok && dp == n.port {
			n.port = -1
		}
		return &n, nil
	case "username", "password":
		if noAuthority {
			return u, nil
		}
		n := *u
		if field == "username" {
			n.username = pctEncodeString(v, userinfoSet)
		} else {
			n.password = pctEncodeString(v, userinfoSet)
		}
		return &n, nil
	case "host", "hostname":
		if u.opaque {
			return u, nil
		}
		end := len(v)
		brackets := false
		for i, r := range v {
			if r == '[' {
				brackets = true
			} else if r == ']' {
				brackets = false
			}
			if r == '/' || r == '?' || r == '#' || (isSpecial(u.scheme) && r == '\\') || (field == "hostname" && r == ':' && !brackets) {
				end = i
				break
			}
		}
		h := v[:end]
		if h == "" && isSpecial(u.scheme) {
			return u, nil
		}
		n := *u
		n.host = strp("")
		n.port = -1
		if field == "host" {
			n.port = u.port
			if strings.Contains(h, ":") && !strings.HasSuffix(h, "]") {
				n.port = -1
			}
		}
		creds := strings.TrimPrefix(n.prefix(), u.scheme+"://")
		s := u.scheme + "://" + creds + h
		if field == "hostname" && u.port >= 0 {
			s += ":" + strconv.Itoa(u.port)
		}
		return reparse(s + pathPart(u) + u.tail()), nil
	case "port":
		if noAuthority {
			return u, nil
		}
		n := *u
		if v == "" {
			n.port = -1
			return &n, nil
		}
		i := 0
		for i < len(v) && v[i] >= '0' && v[i] <= '9' {
			i++
		}
		if i == 0 {
			return u, nil
		}
		p, err := strconv.Atoi(v[:i])
		if err != nil || p > 65535 {
			return u, nil
		}
		n.port = p
		if dp, ok := specialPorts[u.scheme]; ok && dp == p {
			n.port = -1
		}
		return &n, nil
	case "pathname":
		if u.opaque {
			return u, nil
		}
		p := strings.NewReplacer("?", "%3F", "#", "%23").Replace(v)
		if (u.host != nil || isSpecial(u.scheme)) && !strings.HasPrefix(p, "/") && !(isSpecial(u.scheme) && strings.HasPrefix(p, "\\")) {
			p = "/" + p
		}
		return reparse(u.prefix() + p + u.tail()), nil
	case "search":
		n := *u
		if v == "" {
			n.query = nil
			return &n, nil
		}
		v = strings.TrimPrefix(v, "?")
		n.query = strp("")
		n.fragment = nil
		r := reparse(n.prefix() + pathPart(&n) + "?" + strings.ReplaceAll(v, "#", "%23"))
		if r != u {
			r.fragment = u.fragment
		}
		return r, nil
	case "hash":
		n := *u
		if v == "" {
			n.fragment = nil
			return &n, nil
		}
		v = strings.TrimPrefix(v, "#")
		n.fragment = strp(pctEncodeString(v, fragmentSet))
		return &n, nil
	}
	return u, nil
}

func pathPart(u *url) string {
	p := u.pathname()
	if u.host == nil && !u.opaque && len(u.path) > 1 && u.path[0] == "" {
		p = "/." + p
	}
	return p
}
