package upstream

import (
	"bytes"
	"io"
	"log/slog"
	"mime"
	"net/http"
)

// What the SDK's streamable-HTTP client (go-sdk v1.8.0) does with large
// replies, and so why frameLimitTransport exists:
//
//   - a JSON reply to a POSTed call is read with io.ReadAll, without any
//     bound, and a failed read or decode fails the whole connection;
//   - an event stream is read event by event, each bounded by
//     StreamableClientTransport.MaxEventSize (16 MiB by default), and an
//     event over it is a "malformed event" that fails the whole connection
//     too;
//   - the body of an error status is read with io.ReadAll, unbounded, in
//     search of a JSON-RPC error.
//
// frameLimitTransport makes each of these fail one call at most.

// frameLimitTransport bounds, to limit bytes, what each frame of an HTTP
// server's replies can make the SDK hold:
//
//   - a JSON body (the reply to one POSTed call) over the limit is closed
//     unread past the limit and replaced by the error reply (tooLargeReply)
//     for the call's id, taken from the request;
//   - an event stream goes through an sseFilter, which does the same for
//     every event over the limit;
//   - the body of an error status is cut at the limit (the SDK only looks
//     for a JSON-RPC error in it).
type frameLimitTransport struct {
	base  http.RoundTripper
	limit int
	log   *slog.Logger
}

func (t *frameLimitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		resp.Body = cutBody{io.LimitReader(resp.Body, int64(t.limit)), resp.Body}
	case mt == "text/event-stream":
		resp.Body = newSSEFilter(resp.Body, t.limit, t.log)
	case mt == "application/json" && (resp.ContentLength < 0 || resp.ContentLength > int64(t.limit)):
		// A declared length within the limit needs nothing: net/http
		// never reads past it.
		resp.Body = &jsonBody{body: resp.Body, limit: t.limit, length: resp.ContentLength, req: req, log: t.log}
	}
	return resp, nil
}

type cutBody struct {
	io.Reader
	io.Closer
}

// jsonBody is a JSON reply body of unknown or excessive length. At the
// first Read it reads up to limit+1 bytes (what the SDK would buffer
// anyway); a body over the limit is replaced by the error reply for the
// request's id.
type jsonBody struct {
	body   io.ReadCloser
	limit  int
	length int64 // Content-Length; -1 if unknown
	req    *http.Request
	log    *slog.Logger

	r   io.Reader // what Read serves, once filled
	err error     // a read error of body, returned after r's bytes
}

func (b *jsonBody) Read(p []byte) (int, error) {
	if b.r == nil {
		b.fill()
	}
	n, err := b.r.Read(p)
	if err == io.EOF && b.err != nil {
		err = b.err
	}
	return n, err
}

func (b *jsonBody) Close() error { return b.body.Close() }

func (b *jsonBody) fill() {
	var data []byte
	if b.length <= int64(b.limit) {
		var err error
		data, err = io.ReadAll(io.LimitReader(b.body, int64(b.limit)+1))
		if len(data) <= b.limit {
			b.r, b.err = bytes.NewReader(data), err
			return
		}
	}
	size := max(b.length, 0)
	id := requestID(b.req)
	if id == nil {
		// Not a request we can read back: find the id in the reply
		// itself, reading it to its end without keeping it.
		var s idScanner
		s.feed(data)
		n, _ := io.Copy(scanWriter{&s}, b.body)
		size = int64(len(data)) + n
		id, _ = s.replyID()
	}
	_ = b.body.Close() // the rest is not wanted: let the connection go
	if id == nil {
		b.log.Warn("upstream: dropped an HTTP reply over the frame limit whose request id is unknown",
			slog.Int64("bytes", size), slog.Int("limit", b.limit))
		b.r = bytes.NewReader(nil)
		return
	}
	b.log.Warn("upstream: a reply was over the frame limit; the call fails with RESULT_TOO_LARGE",
		slog.String("id", string(id)), slog.Int64("bytes", size), slog.Int("limit", b.limit))
	b.r = bytes.NewReader(tooLargeReply(id, int64(b.limit), size))
}

type scanWriter struct{ s *idScanner }

func (w scanWriter) Write(p []byte) (int, error) {
	w.s.feed(p)
	return len(p), nil
}

// requestID returns the JSON-RPC id of the request req carries, or nil.
// The SDK's requests are in memory (GetBody is set) and put the id first,
// so this reads a few bytes.
func requestID(req *http.Request) []byte {
	if req == nil || req.GetBody == nil {
		return nil
	}
	rc, err := req.GetBody()
	if err != nil {
		return nil
	}
	defer rc.Close()
	var s idScanner
	buf := make([]byte, 512)
	for !s.foundID() {
		n, err := rc.Read(buf)
		s.feed(buf[:n])
		if err != nil {
			break
		}
	}
	return s.id
}

// sseFilter passes a server-sent event stream through unchanged, except
// that an event over limit bytes is read to its end without being kept
// and replaced by an event carrying the error reply for the same JSON-RPC
// id (and the same event id, so that a resumed stream starts after it); an
// oversized event with no reply id (a notification, a request from the
// server) is dropped, with a warning. Each Read returns bytes of one event
// only.
type sseFilter struct {
	body  io.ReadCloser
	limit int
	log   *slog.Logger

	buf       []byte // read buffer; buf[pos:end] is unprocessed
	pos, end  int
	err       error  // body's error, returned once everything is drained
	ev        []byte // the current event so far
	lineStart int    // where its current line starts in ev
	out       []byte // what Read hands out next
	outEv     bool   // out aliases ev: reset ev once out is drained
	skip      bool   // reading the rest of an event over the limit
	sk        sseSkipper
}

func newSSEFilter(body io.ReadCloser, limit int, log *slog.Logger) *sseFilter {
	return &sseFilter{body: body, limit: limit, log: log, buf: make([]byte, filterBufSize)}
}

func (f *sseFilter) Close() error { return f.body.Close() }

func (f *sseFilter) Read(p []byte) (int, error) {
	for len(f.out) == 0 {
		if f.outEv {
			f.outEv = false
			f.ev, f.lineStart = f.ev[:0], 0
			if cap(f.ev) > keepLineCap {
				f.ev = nil
			}
		}
		if f.pos < f.end {
			f.process()
			continue
		}
		if f.err != nil {
			if f.skip {
				f.endOversized()
				continue
			}
			if len(f.ev) > 0 { // the stream ended inside an event
				f.out, f.outEv = f.ev, true
				continue
			}
			return 0, f.err
		}
		n, err := f.body.Read(f.buf)
		f.pos, f.end, f.err = 0, n, err
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// process consumes buf[pos:end] up to the end of a line, at most.
func (f *sseFilter) process() {
	chunk := f.buf[f.pos:f.end]
	if f.skip {
		n, done := f.sk.feed(chunk)
		f.pos += n
		if done {
			f.endOversized()
		}
		return
	}
	i := bytes.IndexByte(chunk, '\n')
	piece := chunk
	if i >= 0 {
		piece = chunk[:i+1]
	}
	if len(f.ev)+len(piece) > f.limit {
		f.skip = true
		f.sk.reset()
		f.sk.feed(f.ev) // holds no blank line, so the event goes on
		f.ev, f.lineStart = f.ev[:0], 0
		if cap(f.ev) > keepLineCap {
			f.ev = nil
		}
		return // the chunk is fed on the next call
	}
	f.ev = append(f.ev, piece...)
	f.pos += len(piece)
	if i < 0 {
		return
	}
	if len(bytes.TrimRight(f.ev[f.lineStart:], "\r\n")) == 0 { // a blank line ends the event
		f.out, f.outEv = f.ev, true
		return
	}
	f.lineStart = len(f.ev)
}

// endOversized ends a skipped event: out becomes its replacement, if any.
func (f *sseFilter) endOversized() {
	f.skip = false
	k := &f.sk
	var ev bytes.Buffer
	if k.id != nil && !k.idBad {
		ev.WriteString("id: ")
		ev.Write(bytes.TrimSpace(k.id))
		ev.WriteString("\n")
	}
	name := string(bytes.TrimSpace(k.name))
	id, ok := k.scan.replyID()
	if ok && (name == "" || name == "message") {
		f.log.Warn("upstream: a reply was over the frame limit; the call fails with RESULT_TOO_LARGE",
			slog.String("id", string(id)), slog.Int64("bytes", k.size), slog.Int("limit", f.limit))
		ev.WriteString("data: ")
		ev.Write(tooLargeReply(id, int64(f.limit), k.size))
		ev.WriteString("\n")
	} else {
		f.log.Warn("upstream: dropped an event over the frame limit (not a reply to a call: a request, notification or garbage)",
			slog.Int64("bytes", k.size), slog.Int("limit", f.limit), slog.Bool("request", k.scan.method))
	}
	if ev.Len() > 0 {
		ev.WriteString("\n")
		f.out = ev.Bytes()
	}
}

// sseSkipper reads an event without keeping it: the JSON of its data
// lines goes to an idScanner; its id and event name (short fields) are
// kept.
type sseSkipper struct {
	inField  bool // reading a line's field name
	field    [8]byte
	fieldLen int    // -1: longer than field
	kind     byte   // of the line's field: 'd' data, 'i' id, 'e' event, 0 other
	blank    bool   // the line so far is empty
	data     bool   // a data line was seen
	id       []byte // nil: no id line
	idBad    bool
	name     []byte
	scan     idScanner
	size     int64 // bytes of the event so far
}

func (k *sseSkipper) reset() {
	scan := k.scan
	scan.reset()
	*k = sseSkipper{inField: true, blank: true, scan: scan}
}

// feed reads the next bytes of the event; done reports that its blank line
// was found, and n how many bytes of p belong to the event.
func (k *sseSkipper) feed(p []byte) (n int, done bool) {
	defer func() { k.size += int64(n) }()
	for i := 0; i < len(p); i++ {
		b := p[i]
		if b == '\n' {
			if k.blank {
				return i + 1, true
			}
			k.inField, k.fieldLen, k.kind, k.blank = true, 0, 0, true
			continue
		}
		if k.blank && b == '\r' {
			continue
		}
		k.blank = false
		if k.inField {
			if b != ':' {
				if k.fieldLen >= 0 && k.fieldLen < len(k.field) {
					k.field[k.fieldLen] = b
					k.fieldLen++
				} else {
					k.fieldLen = -1
				}
				continue
			}
			k.inField = false
			if k.fieldLen >= 0 {
				switch string(k.field[:k.fieldLen]) {
				case "data":
					k.kind = 'd'
					if k.data { // data lines are joined with newlines
						k.scan.feed([]byte{'\n'})
					}
					k.data = true
				case "id":
					k.kind, k.id, k.idBad = 'i', k.id[:0], false
				case "event":
					k.kind, k.name = 'e', k.name[:0]
				}
			}
			continue
		}
		switch k.kind {
		case 'd':
			j := bytes.IndexByte(p[i:], '\n')
			if j < 0 {
				j = len(p) - i
			}
			k.scan.feed(p[i : i+j])
			i += j - 1
		case 'i':
			if len(k.id) < maxIDLen {
				k.id = append(k.id, b)
			} else {
				k.idBad = true
			}
		case 'e':
			if len(k.name) < maxIDLen {
				k.name = append(k.name, b)
			}
		}
	}
	return len(p), false
}
