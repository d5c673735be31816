package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

// parser collects issues while it walks the document, so one run reports
// every problem.
type parser struct{ issues []Issue }

func (p *parser) add(path, format string, args ...any) {
	p.issues = append(p.issues, Issue{Path: path, Message: fmt.Sprintf(format, args...)})
}

type member struct {
	key string
	raw json.RawMessage
}

// object decodes raw as a JSON object, keeping member order and refusing
// duplicate keys (encoding/json would silently keep the last one).
func (p *parser) object(raw json.RawMessage, path string) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		p.add(path, "%s", jsonErr(err))
		return nil, false
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		p.add(path, "want an object, got %s", kind(raw))
		return nil, false
	}
	var out []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			p.add(path, "%s", jsonErr(err))
			return nil, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			p.add(join(path, key), "%s", jsonErr(err))
			return nil, false
		}
		if seen[key] {
			p.add(join(path, key), "duplicate key")
			continue
		}
		seen[key] = true
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		p.add(path, "%s", jsonErr(err))
		return nil, false
	}
	if path == "" {
		if _, err := dec.Token(); err != io.EOF {
			p.add(path, "unexpected data after the top-level object")
			return nil, false
		}
	}
	return out, true
}

func jsonErr(err error) string {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "invalid JSON: unexpected end of input"
	}
	return "invalid JSON: " + err.Error()
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// kind names the JSON type of raw for messages.
func kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func (p *parser) unknown(path, key string, known []string) {
	msg := "unknown key"
	if s := closest(key, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	p.add(join(path, key), "%s", msg)
}

func (p *parser) str(raw json.RawMessage, path string) (string, bool) {
	var s string
	if kind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		p.add(path, "want a string, got %s", kind(raw))
		return "", false
	}
	return s, true
}

func (p *parser) boolean(raw json.RawMessage, path string) (bool, bool) {
	var b bool
	if kind(raw) != "a boolean" || json.Unmarshal(raw, &b) != nil {
		p.add(path, "want true or false, got %s", kind(raw))
		return false, false
	}
	return b, true
}

func (p *parser) strings(raw json.RawMessage, path string) ([]string, bool) {
	var list []json.RawMessage
	if kind(raw) != "an array" || json.Unmarshal(raw, &list) != nil {
		p.add(path, "want an array of strings, got %s", kind(raw))
		return nil, false
	}
	out := make([]string, 0, len(list))
	ok := true
	for i, r := range list {
		s, good := p.str(r, fmt.Sprintf("%s[%d]", path, i))
		ok = ok && good
		out = append(out, s)
	}
	if len(out) == 0 {
		out = nil // [] and absent are the same configuration
	}
	return out, ok
}

func (p *parser) stringMap(raw json.RawMessage, path string) (map[string]string, bool) {
	ms, ok := p.object(raw, path)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(ms))
	for _, m := range ms {
		s, good := p.str(m.raw, join(path, m.key))
		ok = ok && good
		out[m.key] = s
	}
	if len(out) == 0 {
		out = nil
	}
	return out, ok
}

// number decodes a JSON number.
func (p *parser) number(raw json.RawMessage, path, want string) (float64, bool) {
	var f float64
	if kind(raw) != "a number" || json.Unmarshal(raw, &f) != nil {
		p.add(path, "want %s, got %s", want, kind(raw))
		return 0, false
	}
	return f, true
}

// positiveInt decodes a whole number ≥ 1.
func (p *parser) positiveInt(raw json.RawMessage, path string) (int, bool) {
	f, ok := p.number(raw, path, "a whole number")
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) || f < 1 || f > math.MaxInt32 {
		p.add(path, "%s: want a whole number from 1 to %d", bytes.TrimSpace(raw), math.MaxInt32)
		return 0, false
	}
	return int(f), true
}

// duration decodes a Go duration string or a number of milliseconds; the
// result must be positive.
func (p *parser) duration(raw json.RawMessage, path string) (time.Duration, bool) {
	var d time.Duration
	switch kind(raw) {
	case "a string":
		var s string
		_ = json.Unmarshal(raw, &s)
		v, err := time.ParseDuration(s)
		if err != nil {
			p.add(path, "%q is not a duration (want e.g. \"30s\", \"1m30s\" or a number of milliseconds)", s)
			return 0, false
		}
		d = v
	case "a number":
		var f float64
		if json.Unmarshal(raw, &f) != nil || f > float64(math.MaxInt64/int64(time.Millisecond)) {
			p.add(path, "%s milliseconds is out of range", bytes.TrimSpace(raw))
			return 0, false
		}
		d = time.Duration(f * float64(time.Millisecond))
	default:
		p.add(path, "want a duration string or a number of milliseconds, got %s", kind(raw))
		return 0, false
	}
	if d <= 0 {
		p.add(path, "%s: the duration must be positive", bytes.TrimSpace(raw))
		return 0, false
	}
	return d, true
}

// size decodes a size string ("256MiB") or a number of bytes; the result
// must be positive.
func (p *parser) size(raw json.RawMessage, path string) (int64, bool) {
	switch kind(raw) {
	case "a string":
		var s string
		_ = json.Unmarshal(raw, &s)
		n, err := ParseSize(s)
		if err != nil {
			p.add(path, "%q is not a size (want e.g. \"256MiB\", \"1GB\" or a number of bytes)", s)
			return 0, false
		}
		if n <= 0 {
			p.add(path, "%q: the size must be positive", s)
			return 0, false
		}
		return n, true
	case "a number":
		text := string(bytes.TrimSpace(raw))
		if n, err := strconv.ParseInt(text, 10, 64); err == nil && n >= 1 {
			return n, true // exact, even above 2^53
		}
		f, _ := p.number(raw, path, "a number of bytes")
		if f != math.Trunc(f) || f < 1 || f >= 1<<53 {
			p.add(path, "%s: want a whole number of bytes ≥ 1", bytes.TrimSpace(raw))
			return 0, false
		}
		return int64(f), true
	}
	p.add(path, "want a size string or a number of bytes, got %s", kind(raw))
	return 0, false
}

var sizeUnits = map[string]int64{
	"":    1,
	"b":   1,
	"kb":  1000,
	"mb":  1000 * 1000,
	"gb":  1000 * 1000 * 1000,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
}

// ParseSize parses a size: a whole or decimal number followed, optionally
// after spaces, by a unit (B, KB, MB, GB, KiB, MiB, GiB; any letter case).
// A bare number is bytes. A fractional result is rounded down.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, ok := sizeUnits[unit]
	if num == "" || !ok || strings.Count(num, ".") > 1 || num[0] == '.' || num[len(num)-1] == '.' {
		return 0, fmt.Errorf("%q is not a size", s)
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/mult {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return n * mult, nil
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f*float64(mult) >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return int64(f * float64(mult)), nil
}

var topKeys = []string{"$schema", "mcpServers", "codemode"}

func (p *parser) config(data []byte) *Config {
	c := &Config{Servers: map[string]Server{}}
	top, ok := p.object(data, "")
	if !ok {
		return c
	}
	for _, m := range top {
		switch m.key {
		case "$schema":
			p.str(m.raw, m.key)
		case "mcpServers":
			servers, ok := p.object(m.raw, m.key)
			if !ok {
				continue
			}
			for _, s := range servers {
				c.Servers[s.key] = p.server(s.raw, join(m.key, s.key))
			}
		case "codemode":
			c.CodeMode = p.codemode(m.raw, m.key)
		default:
			p.unknown("", m.key, topKeys)
		}
	}
	// Semantic checks run on what parsed; an issue under (or over) a path
	// that already has one would only repeat it.
	if err := c.Validate(); err != nil {
		parsed := p.issues
		for _, is := range err.(*Error).Issues {
			if !related(is.Path, parsed) {
				p.issues = append(p.issues, is)
			}
		}
	}
	return c
}

func (p *parser) server(raw json.RawMessage, path string) Server {
	var s Server
	if !readObject(p, raw, path, serverFields, &s) {
		return s
	}
	typ := s.Transport
	switch {
	case typ == TransportStdio && s.URL != "":
		p.add(join(path, "url"), `a "stdio" server has a command, not a url`)
	case typ == TransportHTTP && s.Command != "":
		p.add(join(path, "command"), `an HTTP server has a url, not a command`)
	}
	switch {
	case s.Fixture != "" && typ != "":
		p.add(join(path, "type"), `a fixture server has no "type"`)
	case s.Command != "":
		s.Transport = TransportStdio
	case s.URL != "":
		s.Transport = TransportHTTP
	case s.Fixture != "":
		s.Transport = TransportFixture
	default:
		s.Transport = typ
	}
	return s
}

func (p *parser) codemode(raw json.RawMessage, path string) CodeMode {
	var c CodeMode
	readObject(p, raw, path, codeModeFields, &c)
	return c
}

// closest returns the known key nearest to key, or "" if none is close. It
// is the registry's close-name rule, so config keys and tool names are
// suggested alike.
func closest(key string, known []string) string {
	if s := errs.Suggest(key, known, 1); len(s) > 0 {
		return s[0]
	}
	return ""
}

func related(path string, issues []Issue) bool {
	for _, is := range issues {
		if under(path, is.Path) || under(is.Path, path) {
			return true
		}
	}
	return false
}

// under reports whether path is p or lies below it.
func under(path, p string) bool {
	return path == p || p == "" || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}
