// Package audit writes the audit trail: one JSON line per call, direct or
// nested, written before the call is reported done.
//
// # The line
//
//	{"time":"2026-12-01T10:00:00.123456Z","session":"9f2c…","agent":"session-2-9f2c…",
//	 "client":"claude-code","callId":"mcp_7:ptc:3","parentId":"mcp_7","rootId":"mcp_7",
//	 "caller":"program","tool":"mcp__fs__write_file","argsSha256":"…","argsBytes":48,
//	 "rule":"rules[0]","action":"ask","reason":"writes files","approval":"allow-once",
//	 "answeredBy":"claude-code","code":"","ms":2113.5}
//
// Every key is always present. caller is "model" for a direct call and
// "program" for a nested one. argsSha256 is the SHA-256 of the arguments'
// JSON text after redaction (see below), so it identifies a call without
// revealing a redacted value; argsBytes is the size of the text before.
// rule, action, reason, approval and answeredBy are what the policy wrote
// in the call's [Note] ("" when it did not decide: a call refused before
// the policy step, such as an unknown tool). code is the result's error
// code, "" on success; ms the call's duration in milliseconds.
//
// # Redaction
//
// Values the redaction rules match (package internal/redact: key names at
// any depth, or JSON pointers) are replaced before the digest is taken; the
// policy's approval prompt uses the same rules. A cheap scan skips the
// rewrite when no rule's name occurs in the text at all.
//
// # Finalization and failure
//
// The trail is a [tools.Middleware], the outermost: the registry finalizes
// a call (its token, the tool/result event) only after the outermost
// middleware returned, so a call is not reported done before its line is
// written. The trail fails closed: a call whose line cannot be written
// after it ran has its result withheld (DENIED, saying so), and from then
// on (or from start-up, when the file cannot be opened) every call is
// refused with DENIED before it runs, until the line of such a refusal is
// written again; the error is logged. The file is rotated by lumberjack
// (maxSizeMB, maxBackups).
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Config is the "audit" object of the configuration.
type Config struct {
	// Path is the audit file. Required.
	Path string
	// MaxSizeMB is the size at which the file is rotated. If zero, 100.
	MaxSizeMB int
	// MaxBackups is how many rotated files are kept. If zero, 5.
	MaxBackups int
}

// Defaults of [Config].
const (
	DefaultMaxSizeMB  = 100
	DefaultMaxBackups = 5
)

// Options configures a [Trail].
type Options struct {
	Config
	// Redact are the rules applied before the digest. If nil,
	// redact.Default().
	Redact *redact.Rules
	// Logger receives write failures at Error. If nil, nothing is logged.
	Logger *slog.Logger
	// Session names the session and the client of a call's agent (the MCP
	// front knows them). If nil, or when it returns "", the session is the
	// agent's id and the client is "".
	Session func(*tools.Agent) (session, client string)
}

// Trail is an open audit trail. It is safe for concurrent use.
type Trail struct {
	opts    Options
	log     *slog.Logger
	w       io.WriteCloser // a *lumberjack.Logger
	needles []string       // lower-cased names the rules match on
	stops   [256]bool      // the bytes at which mayMatch looks closer
	wide    bool           // a needle is not ASCII

	broken atomic.Pointer[error] // the last write error, nil while writable
	stamp  atomic.Pointer[stamp] // the second the last line was written in
	bufs   sync.Pool
}

// Open opens the trail at opts.Path. A file that cannot be written is not
// an error here: it is logged, and calls are refused until it can be.
func Open(opts Options) (*Trail, error) {
	if opts.Path == "" {
		return nil, errors.New("audit: no path")
	}
	if opts.MaxSizeMB == 0 {
		opts.MaxSizeMB = DefaultMaxSizeMB
	}
	if opts.MaxBackups == 0 {
		opts.MaxBackups = DefaultMaxBackups
	}
	if opts.Redact == nil {
		opts.Redact = redact.Default()
	}
	t := &Trail{opts: opts, log: opts.Logger, w: &lumberjack.Logger{Filename: opts.Path, MaxSize: opts.MaxSizeMB, MaxBackups: opts.MaxBackups}}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	for _, e := range opts.Redact.Entries() {
		if i := strings.LastIndexByte(e, '/'); i >= 0 {
			e = e[i+1:]
		}
		if e != "" {
			t.needles = append(t.needles, strings.ToLower(e))
		}
	}
	t.stops, t.wide = stopBytes(t.needles)
	t.bufs.New = func() any { b := make([]byte, 0, 512); return &b }
	// Open the file now, so that a bad path is logged at start-up.
	if _, err := t.w.Write(nil); err != nil {
		t.fail(err)
	}
	return t, nil
}

// Close closes the file.
func (t *Trail) Close() error { return t.w.Close() }

// fail records a write error: calls are refused until a write succeeds.
func (t *Trail) fail(err error) {
	if t.broken.Swap(&err) == nil {
		t.log.Error("audit: the trail cannot be written; calls are refused until it can", slog.String("path", t.opts.Path), slog.Any("err", err))
	}
}

// check reports why the trail cannot take a call, or nil.
func (t *Trail) check() error {
	if p := t.broken.Load(); p != nil {
		return *p
	}
	return nil
}

// recovered records a successful write after failures.
func (t *Trail) recovered() {
	if t.broken.Swap(nil) != nil {
		t.log.Warn("audit: the trail can be written again", slog.String("path", t.opts.Path))
	}
}

// Middleware is the trail as a registry middleware. Add it first
// (outermost), so that it sees every call and its final result.
func (t *Trail) Middleware() tools.Middleware {
	return func(next tools.Executor) tools.Executor {
		return func(ctx context.Context, e *tools.Execution) *tools.Result {
			note := e.Note()
			if err := t.check(); err != nil {
				// Refused before it runs. Writing the refusal's own line is
				// the probe: once one is written, calls run again.
				res := denied("the audit trail cannot be written (%v): no call runs until it can", err)
				if t.write(e, note, res) == nil {
					t.recovered()
				}
				return res
			}
			res := next(ctx, e)
			if err := t.write(e, note, res); err != nil {
				t.fail(err)
				return denied("the call ran, but its audit line could not be written (%v): its result is withheld", err)
			}
			return res
		}
	}
}

func denied(format string, args ...any) *tools.Result {
	err := errs.Errorf(errs.CodeDenied, format, args...)
	return &tools.Result{Content: []tools.Content{tools.Text{Text: "Error: " + err.Message}}, IsError: true, Err: err}
}

// write encodes and writes the line of one call.
func (t *Trail) write(e *tools.Execution, n *tools.Note, res *tools.Result) error {
	bp := t.bufs.Get().(*[]byte)
	b := t.appendLine((*bp)[:0], e, n, res, time.Now())
	_, err := t.w.Write(b)
	if cap(b) <= 64<<10 {
		*bp = b
		t.bufs.Put(bp)
	}
	return err
}

func (t *Trail) appendLine(b []byte, e *tools.Execution, n *tools.Note, res *tools.Result, now time.Time) []byte {
	var session, agent, client string
	if a := e.Agent(); a != nil {
		agent = a.ID()
		if t.opts.Session != nil {
			session, client = t.opts.Session(a)
		}
		if session == "" {
			session = agent
		}
	}
	caller := "model"
	if !e.Parent().IsZero() {
		caller = "program"
	}
	args := ""
	if e.Resolved() {
		args = e.ArgumentsText()
	}
	var code errs.Code
	if res.Err != nil {
		code = res.Err.Code
	} else if res.IsError {
		code = errs.CodeToolError
	}
	b = append(b, `{"time":"`...)
	b = t.appendTime(b, now)
	b = append(b, `","session":`...)
	b = appendString(b, session)
	b = append(b, `,"agent":`...)
	b = appendString(b, agent)
	b = append(b, `,"client":`...)
	b = appendString(b, client)
	b = append(b, `,"callId":`...)
	b = appendString(b, e.CallID())
	b = append(b, `,"parentId":`...)
	b = appendString(b, e.ParentCallID())
	b = append(b, `,"rootId":`...)
	b = appendString(b, e.RootCallID())
	b = append(b, `,"caller":"`...)
	b = append(b, caller...)
	b = append(b, `","tool":`...)
	b = appendString(b, e.Name())
	b = append(b, `,"argsSha256":"`...)
	if args != "" {
		sum := t.digest(args)
		b = hex.AppendEncode(b, sum[:])
	}
	b = append(b, `","argsBytes":`...)
	b = strconv.AppendInt(b, int64(len(args)), 10)
	b = append(b, `,"rule":`...)
	b = appendString(b, n.Rule)
	b = append(b, `,"action":`...)
	b = appendString(b, n.Action)
	b = append(b, `,"reason":`...)
	b = appendString(b, n.Reason)
	b = append(b, `,"approval":`...)
	b = appendString(b, n.Approval)
	b = append(b, `,"answeredBy":`...)
	b = appendString(b, n.AnsweredBy)
	b = append(b, `,"code":`...)
	b = appendString(b, string(code))
	b = append(b, `,"ms":`...)
	b = appendMs(b, now.Sub(e.Start()).Microseconds())
	b = append(b, "}\n"...)
	return b
}

// stamp is the formatted second a line's time starts with.
type stamp struct {
	sec    int64
	prefix []byte // "2006-01-02T15:04:05"
}

// appendTime appends now in UTC as time.RFC3339Nano does. Formatting the
// date and the time of day is most of that function's cost and changes once
// a second: the trail keeps the last second's text and appends the
// fraction itself.
func (t *Trail) appendTime(b []byte, now time.Time) []byte {
	now = now.UTC()
	sec := now.Unix()
	st := t.stamp.Load()
	if st == nil || st.sec != sec {
		st = &stamp{sec: sec, prefix: now.Truncate(time.Second).AppendFormat(nil, "2006-01-02T15:04:05")}
		t.stamp.Store(st)
	}
	b = append(b, st.prefix...)
	if ns := now.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z')
}

// appendMs appends us microseconds in milliseconds, as
// strconv.AppendFloat(b, float64(us)/1000, 'f', -1, 64) does, without its
// cost: below 10^12 µs (11 days) the shortest decimal of that float is the
// exact quotient, whose digits are those of us.
func appendMs(b []byte, us int64) []byte {
	if us < 0 || us >= 1e12 {
		return strconv.AppendFloat(b, float64(us)/1000, 'f', -1, 64)
	}
	b = strconv.AppendInt(b, us/1000, 10)
	if f := us % 1000; f != 0 {
		d := [4]byte{'.', byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
		n := len(d)
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return b
}

// digest is the SHA-256 of args after redaction. Redacting means
// re-encoding the text, so it is skipped when no rule's name can occur in
// it (see mayMatch).
func (t *Trail) digest(args string) [sha256.Size]byte {
	if t.mayMatch(args) {
		return sha256.Sum256(t.opts.Redact.Apply([]byte(args)))
	}
	// The text is only read: no copy of it.
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(args), len(args)))
}

// stopBytes are the bytes mayMatch stops at: the first bytes of the
// needles in both cases, '\\' (an escape sequence could spell a name), and
// the lead bytes of the characters whose lower case is ASCII (U+0130 'İ'
// is 'i' and U+212A KELVIN SIGN is 'k' to the redaction rules'
// strings.ToLower) — or every non-ASCII byte when a needle is not ASCII
// (wide).
func stopBytes(needles []string) (stops [256]bool, wide bool) {
	if len(needles) == 0 {
		return stops, false
	}
	stops['\\'] = true
	stops["\u0130"[0]] = true
	stops["\u212a"[0]] = true
	for _, n := range needles {
		c := n[0]
		stops[c] = true
		if c >= 'a' && c <= 'z' {
			stops[c-'a'+'A'] = true
		}
		for i := 0; i < len(n); i++ {
			wide = wide || n[i] >= utf8.RuneSelf
		}
	}
	if wide {
		for c := utf8.RuneSelf; c < len(stops); c++ {
			stops[c] = true
		}
	}
	return stops, wide
}

// mayMatch reports whether a redaction rule's name may occur in text: one
// of the needles, ignoring ASCII case, or anything that could spell one
// another way (an escape sequence, a character whose lower case is ASCII,
// any non-ASCII character when a needle is not ASCII). One pass over the
// text, looking closer only at the stop bytes.
func (t *Trail) mayMatch(text string) bool {
	if len(t.needles) == 0 {
		return false
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !t.stops[c] {
			continue
		}
		if c >= utf8.RuneSelf {
			if t.wide {
				return true
			}
			if r, _ := utf8.DecodeRuneInString(text[i:]); r == '\u0130' || r == '\u212a' {
				return true
			}
			continue
		}
		if c == '\\' && i+1 < len(text) && text[i+1] == 'u' {
			return true
		}
		for _, n := range t.needles {
			if hasPrefixFold(text[i:], n) {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case needle n,
// ignoring ASCII case, without allocating.
func hasPrefixFold(s, n string) bool {
	if len(s) < len(n) {
		return false
	}
	for j := 0; j < len(n); j++ {
		if lower(s[j]) != n[j] {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// plain marks the bytes a JSON string holds as they are: printable ASCII
// other than '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a JSON string. The ids and names of a line are
// plain ASCII almost always: those are copied in one piece.
func appendString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	i := 0
	for i < len(s) && plain[s[i]] {
		i++
	}
	if i == len(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, fmt.Sprintf(`\u%04x`, r)...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
