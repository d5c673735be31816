package upstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
)

// A frame is one JSON-RPC message on the wire: a line of a stdio stream, the
// body of an HTTP reply, or one server-sent event. The SDK bounds frames
// too, but a frame over its bound is a read error, and a read error ends
// the whole connection: every call of every agent to that server fails
// until it restarts. Our filters (frameFilter, below, for stdio; those of
// httpframe.go for HTTP) sit between the server and the SDK and replace a
// frame over the server's limit by a small error reply for the same
// request id, so that only the call whose reply was too large fails.

// frameTooLargeCode is the JSON-RPC error code of the reply a filter puts in
// place of a frame over the limit: implementation-defined server-error
// range (-32000 to -32099). The error's data (frameTooLargeData) tells it
// apart from a server's own -32099.
const frameTooLargeCode = -32099

// frameTooLargeMark is frameTooLargeData.Codemode.
const frameTooLargeMark = "frame-too-large"

// frameTooLargeData is the data member of a synthesized error.
type frameTooLargeData struct {
	Codemode string `json:"codemode"` // frameTooLargeMark
	Limit    int64  `json:"limit"`
	// Bytes is the size of the dropped frame, or 0 if it was not read to
	// its end (an HTTP body longer than the limit is closed unread).
	Bytes int64 `json:"bytes,omitempty"`
}

// sdkFrameMargin is added to our limit for the SDK's own frame bounds
// (mcp.IOTransport.MaxLineLength, StreamableClientTransport.MaxEventSize)
// so that they never trip first: ours drop one frame, theirs the
// connection. It covers the line terminator and an event's field names.
const sdkFrameMargin = 4 << 10

// maxIDLen bounds the JSON text of a request id we echo back; a longer
// "id" is treated as none.
const maxIDLen = 256

// tooLargeReply returns the JSON-RPC error reply, without a newline, that
// stands for a dropped frame of size bytes (0: unknown) answering id.
func tooLargeReply(id []byte, limit, size int64) []byte {
	msg := fmt.Sprintf("the reply was over the %d-byte frame limit and was dropped", limit)
	if size > 0 {
		msg = fmt.Sprintf("the reply was %d bytes, over the %d-byte frame limit, and was dropped", size, limit)
	}
	data, _ := json.Marshal(frameTooLargeData{Codemode: frameTooLargeMark, Limit: limit, Bytes: size})
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"error":{"code":`)
	b.WriteString(strconv.Itoa(frameTooLargeCode))
	b.WriteString(`,"message":`)
	m, _ := json.Marshal(msg)
	b.Write(m)
	b.WriteString(`,"data":`)
	b.Write(data)
	b.WriteString("}}")
	return b.Bytes()
}

// idScanner finds, in a stream of bytes holding one JSON value, the "id"
// and "method" members of the top-level object without buffering the
// value: it keeps a few bytes of state and at most maxIDLen bytes of id.
// It accepts what is well formed and gives up (no id) on what is not.
type idScanner struct {
	st      scanState
	depth   int  // nesting inside a nested member value (stNested)
	inStr   bool // in a string inside a nested value
	esc     bool // after a backslash in a string
	key     [8]byte
	keyLen  int // -1: longer than key, or not ASCII: matches nothing
	keyEsc  int // 0: none; 1: after '\'; 2–5: reading the hex digits of \u
	keyRune rune
	capture bool   // the current member value is "id"'s
	val     []byte // its text so far
	valBad  bool   // longer than maxIDLen
	id      []byte // the last valid "id" value seen
	method  bool   // a "method" member was seen: a request or notification
	object  bool   // the value is an object
}

type scanState uint8

const (
	stStart  scanState = iota // before the value
	stKey                     // in the object, before a key or '}'
	stInKey                   // in a key string
	stColon                   // after a key
	stValue                   // after ':'
	stStrVal                  // in a string member value
	stScalar                  // in a number, true, false or null member value
	stNested                  // in an object or array member value
	stComma                   // after a member value
	stDone                    // the top-level value ended, or is not an object, or is garbage
)

func (s *idScanner) reset() {
	val := s.val[:0]
	*s = idScanner{val: val}
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// feed scans the next bytes of the value.
func (s *idScanner) feed(p []byte) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch s.st {
		case stStart:
			if isSpace(b) {
				continue
			}
			if b == '{' {
				s.object = true
				s.st = stKey
			} else {
				s.st = stDone
			}
		case stKey:
			switch {
			case isSpace(b):
			case b == '"':
				s.st, s.keyLen, s.keyEsc = stInKey, 0, 0
			default: // '}' ends the object; anything else is garbage
				s.st = stDone
			}
		case stInKey:
			s.keyByte(b)
		case stColon:
			switch {
			case isSpace(b):
			case b == ':':
				k := ""
				if s.keyLen >= 0 {
					k = string(s.key[:s.keyLen])
				}
				s.capture = k == "id"
				if k == "method" {
					s.method = true
				}
				s.st = stValue
			default:
				s.st = stDone
			}
		case stValue:
			switch {
			case isSpace(b):
			case b == '"':
				s.st, s.esc = stStrVal, false
				s.record(b)
			case b == '{' || b == '[':
				s.st, s.depth, s.inStr, s.esc = stNested, 1, false, false
				if s.capture { // an object or array is no id
					s.capture = false
					s.id = nil
				}
			default:
				s.st = stScalar
				s.record(b)
			}
		case stStrVal:
			if !s.capture {
				// Skip to the next quote or backslash at once.
				j := skipString(p, i, &s.esc)
				if j == len(p) {
					i = j
					continue
				}
				i, b = j, p[j]
			}
			s.record(b)
			switch {
			case s.esc:
				s.esc = false
			case b == '\\':
				s.esc = true
			case b == '"':
				s.endValue()
				s.st = stComma
			}
		case stScalar:
			if isSpace(b) || b == ',' || b == '}' {
				s.endValue()
				s.st = stComma
				i-- // the comma or brace, again, after the value
				continue
			}
			s.record(b)
		case stNested:
			// Skip string contents in bulk: only quotes, backslashes and
			// brackets matter here.
			if s.inStr {
				j := skipString(p, i, &s.esc)
				if j == len(p) {
					i = j
					continue
				}
				i, b = j, p[j]
				if b == '\\' {
					s.esc = true
				} else {
					s.inStr = false
				}
				continue
			}
			switch b {
			case '"':
				s.inStr = true
			case '{', '[':
				s.depth++
			case '}', ']':
				s.depth--
				if s.depth == 0 {
					s.st = stComma
				}
			}
		case stComma:
			switch {
			case isSpace(b):
			case b == ',':
				s.st = stKey
			default: // '}' ends the object; anything else is garbage
				s.st = stDone
			}
		case stDone:
			return
		}
	}
}

// keyByte takes the next byte of a key string, decoding escapes so that
// "\u0069d" is "id", as a JSON decoder sees it.
func (s *idScanner) keyByte(b byte) {
	switch {
	case s.keyEsc == 1:
		s.keyEsc = 0
		switch b {
		case 'u':
			s.keyEsc, s.keyRune = 2, 0
		case '"', '\\', '/':
			s.keyAppend(rune(b))
		case 'b', 'f', 'n', 'r', 't':
			s.keyAppend('\n') // a control character: matches no key we want
		default:
			s.st = stDone // not JSON
		}
	case s.keyEsc >= 2:
		var d rune
		switch {
		case b >= '0' && b <= '9':
			d = rune(b - '0')
		case b >= 'a' && b <= 'f':
			d = rune(b-'a') + 10
		case b >= 'A' && b <= 'F':
			d = rune(b-'A') + 10
		default:
			s.st = stDone
			return
		}
		s.keyRune = s.keyRune<<4 | d
		if s.keyEsc++; s.keyEsc == 6 {
			s.keyEsc = 0
			s.keyAppend(s.keyRune)
		}
	case b == '\\':
		s.keyEsc = 1
	case b == '"':
		s.st = stColon
	default:
		s.keyAppend(rune(b))
	}
}

func (s *idScanner) keyAppend(r rune) {
	if s.keyLen < 0 {
		return
	}
	if r >= 0x80 || s.keyLen == len(s.key) {
		s.keyLen = -1
		return
	}
	s.key[s.keyLen] = byte(r)
	s.keyLen++
}

func (s *idScanner) record(b byte) {
	if !s.capture || s.valBad {
		return
	}
	if len(s.val) == maxIDLen {
		s.valBad = true
		return
	}
	s.val = append(s.val, b)
}

// endValue ends a string or scalar member value; an "id" value replaces
// the one seen before (a JSON decoder keeps the last of duplicate keys).
func (s *idScanner) endValue() {
	if !s.capture {
		return
	}
	s.capture = false
	s.id = nil
	if !s.valBad && validID(s.val) {
		s.id = append([]byte(nil), s.val...)
	}
	s.val, s.valBad = s.val[:0], false
}

// validID reports whether raw is an id the SDK decodes: a JSON string, or
// a JSON number that fits a float64.
func validID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case c == '-' || c >= '0' && c <= '9': // not null, which decodes into anything
		var f float64
		return json.Unmarshal(raw, &f) == nil
	}
	return false
}

// replyID returns the id of the value scanned so far if it is a reply (an
// object with an "id" and no "method"); ok is false otherwise.
func (s *idScanner) replyID() (id []byte, ok bool) {
	if !s.object || s.method || s.id == nil {
		return nil, false
	}
	return s.id, true
}

// foundID reports whether an id has been seen: enough for a request we
// encoded ourselves, which has one.
func (s *idScanner) foundID() bool { return s.id != nil }

// frameFilter passes the newline-delimited frames it reads from r through
// unchanged, except that a frame over limit bytes (newline excluded) is
// read to its end without being kept and replaced by tooLargeReply for the
// same id; a frame over the limit without an id (a notification, a request
// from the server, a batch, garbage) is dropped, with a warning. Blank
// lines are dropped too. Memory is bounded by the limit plus a read buffer,
// whatever the server sends.
//
// Each Read returns bytes of one frame only, so the SDK's decoder, which
// counts the bytes it reads for one message, counts exactly one frame.
type frameFilter struct {
	r     io.Reader
	limit int
	log   *slog.Logger

	buf      []byte // read buffer; buf[pos:end] is unprocessed
	pos, end int
	err      error  // r's error, returned once buf and line are drained
	line     []byte // the current frame, when it spans reads
	out      []byte // what Read hands out next: one frame with its newline, or a synthesized reply
	outLine  bool   // out aliases line: reset line once out is drained
	skip     bool   // reading the rest of a frame over the limit
	size     int64  // bytes of that frame so far
	scan     idScanner
}

// filterBufSize is the read size; keepLineCap is the largest line buffer
// kept for the next frame (a larger one is dropped after use).
const (
	filterBufSize = 64 << 10
	keepLineCap   = 1 << 20
)

func newFrameFilter(r io.Reader, limit int, log *slog.Logger) *frameFilter {
	return &frameFilter{r: r, limit: limit, log: log, buf: make([]byte, filterBufSize)}
}

// Close does nothing: the child's stdout is closed when it is reaped (the
// transport closes the connection by closing the child's stdin).
func (f *frameFilter) Close() error { return nil }

// CloseUnblocksRead tells stdiox that the connection may read on its
// caller's goroutine: closing the connection closes the child's stdin and
// stops the child (childStdin.Close), which ends a read of its stdout.
func (f *frameFilter) CloseUnblocksRead() bool { return true }

func (f *frameFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.outLine {
			f.outLine = false
			f.line = f.line[:0]
			if cap(f.line) > keepLineCap {
				f.line = nil
			}
		}
		if f.pos < f.end {
			f.process()
			continue
		}
		if f.err != nil {
			if f.skip { // the stream ended inside a frame over the limit
				f.endOversized()
				continue
			}
			if len(f.line) > 0 { // a last frame without its newline
				if blank(f.line) {
					f.line = f.line[:0]
				} else {
					f.out, f.outLine = f.line, true
				}
				continue
			}
			return 0, f.err
		}
		n, err := f.r.Read(f.buf)
		f.pos, f.end, f.err = 0, n, err
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// process consumes buf[pos:end] up to the end of a frame, at most.
func (f *frameFilter) process() {
	chunk := f.buf[f.pos:f.end]
	i := bytes.IndexByte(chunk, '\n')
	if f.skip {
		if i < 0 {
			f.scan.feed(chunk)
			f.size += int64(len(chunk))
			f.pos = f.end
			return
		}
		f.scan.feed(chunk[:i])
		f.size += int64(i)
		f.pos += i + 1
		f.endOversized()
		return
	}
	if i < 0 {
		if len(f.line)+len(chunk) > f.limit {
			f.startOversized(chunk)
		} else {
			f.line = append(f.line, chunk...)
		}
		f.pos = f.end
		return
	}
	f.pos += i + 1
	if len(f.line)+i > f.limit {
		f.startOversized(chunk[:i])
		f.endOversized()
		return
	}
	if len(f.line) == 0 {
		// The whole frame is in buf: hand it out from there. buf is not
		// read into again before out is drained.
		if !blank(chunk[:i]) {
			f.out = chunk[:i+1]
		}
		return
	}
	f.line = append(f.line, chunk[:i+1]...)
	if blank(f.line) {
		f.line = f.line[:0]
		return
	}
	f.out, f.outLine = f.line, true
}

// startOversized switches to skipping: what is buffered of the frame and
// tail (its next bytes) go to the scanner, and from now on nothing of the
// frame is kept.
func (f *frameFilter) startOversized(tail []byte) {
	f.skip = true
	f.scan.reset()
	f.scan.feed(f.line)
	f.scan.feed(tail)
	f.size = int64(len(f.line) + len(tail))
	f.line = f.line[:0]
	if cap(f.line) > keepLineCap {
		f.line = nil
	}
}

// endOversized ends a skipped frame: out becomes the error reply for its
// id, if it had one.
func (f *frameFilter) endOversized() {
	f.skip = false
	if id, ok := f.scan.replyID(); ok {
		f.log.Warn("upstream: a reply was over the frame limit; the call fails with RESULT_TOO_LARGE",
			slog.String("id", string(id)), slog.Int64("bytes", f.size), slog.Int("limit", f.limit))
		f.out = append(tooLargeReply(id, int64(f.limit), f.size), '\n')
		return
	}
	f.log.Warn("upstream: dropped a message over the frame limit (not a reply to a call: a request, notification, batch or garbage)",
		slog.Int64("bytes", f.size), slog.Int("limit", f.limit), slog.Bool("request", f.scan.method))
}

// blank reports whether line holds only white space.
func blank(line []byte) bool {
	for _, b := range line {
		if !isSpace(b) {
			return false
		}
	}
	return true
}

// skipString returns the index of the next quote or backslash in p from i
// that is not escaped (len(p) if there is none), clearing *esc once the
// escaped byte is passed: string contents are skipped in bulk.
func skipString(p []byte, i int, esc *bool) int {
	for i < len(p) && (*esc || (p[i] != '"' && p[i] != '\\')) {
		*esc = false
		i++
	}
	return i
}
