package stdiox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
)

// chunkReader returns at most n bytes per Read: frames arrive in pieces.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n, len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

func readAll(r io.Reader, max int) ([]string, error) {
	fr := newFrameReader(r, max)
	var out []string
	for {
		f, err := fr.next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		out = append(out, string(f))
	}
}

func TestFrameReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct {
		name  string
		in    string
		max   int
		want  []string
		error error
	}{
		{"one", "{}\n", 0, []string{"{}"}, nil},
		{"two", "{\"a\":1}\n{\"b\":2}\n", 0, []string{`{"a":1}`, `{"b":2}`}, nil},
		{"crlf", "{}\r\n[]\r\n", 0, []string{"{}", "[]"}, nil},
		{"blank lines skipped", "\n\n  \r\n{}\n\t\n", 0, []string{"{}"}, nil},
		{"last frame without newline", "{}\n[1]", 0, []string{"{}", "[1]"}, nil},
		{"empty", "", 0, nil, nil},
		{"at the limit", long + "\n", 100, []string{long}, nil},
		{"over the limit", "{}\n" + long + "x\n", 100, []string{"{}"}, ErrFrameTooLarge},
		{"over the limit, no newline yet", strings.Repeat("y", 10000), 100, nil, ErrFrameTooLarge},
		{"trailing blanks count", long + " \r\n", 100, nil, ErrFrameTooLarge},
		{"trailing blanks dropped", "{} \t\r\n", 100, []string{"{}"}, nil},
	}
	for _, c := range cases {
		for _, chunk := range []int{1, 3, 4096, 1 << 20} {
			got, err := readAll(&chunkReader{data: []byte(c.in), n: chunk}, c.max)
			if !errors.Is(err, c.error) {
				t.Errorf("%s, chunks of %d: error %v, want %v", c.name, chunk, err, c.error)
			}
			if strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("%s, chunks of %d: frames %q, want %q", c.name, chunk, got, c.want)
			}
		}
	}
}

// A stream that ends inside a frame is an unexpected EOF for a reader
// error other than io.EOF, and the last frame at io.EOF.
func TestFrameReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	fr := newFrameReader(io.MultiReader(strings.NewReader("{}\n{\"a\""), errReader{boom}), 0)
	if f, err := fr.next(); err != nil || string(f) != "{}" {
		t.Fatalf("first frame %q, %v", f, err)
	}
	if _, err := fr.next(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// A frame far larger than the usual does not pin its buffer.
func TestFrameReaderReleasesLargeBuffer(t *testing.T) {
	big := `{"x":"` + strings.Repeat("a", 1<<20) + `"}`
	fr := newFrameReader(strings.NewReader(big+"\n{}\n"), 0)
	if f, err := fr.next(); err != nil || len(f) != len(big) {
		t.Fatalf("big frame: %d bytes, %v", len(f), err)
	}
	if f, err := fr.next(); err != nil || string(f) != "{}" {
		t.Fatalf("second frame %q, %v", f, err)
	}
	if _, err := fr.next(); err != io.EOF {
		t.Fatalf("got %v, want EOF", err)
	}
	if cap(fr.buf) > keepFrame {
		t.Fatalf("buffer of %d bytes kept", cap(fr.buf))
	}
}

// The codec agrees with the SDK's jsonrpc.DecodeMessage and EncodeMessage.
func TestCodecMatchesSDK(t *testing.T) {
	frames := []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_run","arguments":{"code":"return 1 + 1"}}}`,
		`{"jsonrpc":"2.0","id":"abc","method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"x"}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"2"}]}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"method not found"}}`,
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"x","data":{"a":[1,2]}}}`,
		`{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"m\n","params":[1,"<&>"]}`,
		`{ "params" : { "a" : "}" } , "method" : "x" , "id" : -12 , "jsonrpc" : "2.0" }`,
		`{"jsonrpc":"2.0","id":1.0,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"","params":null}`,
		`{"jsonrpc":"2.0","id":1,"method":null}`,
		`{"jsonrpc":"2.0","id":1,"error":null,"result":{"x":1}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"x","result":{}}`,
	}
	for _, f := range frames {
		compareWithSDK(t, []byte(f))
	}
}

func TestCodecErrors(t *testing.T) {
	for _, f := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"x"} trailing`,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":true,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":3}`,
		`[]`,
		`[1]`,
		`"x"`,
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
	} {
		if msgs, err := decodeFrame([]byte(f)); err == nil {
			t.Errorf("%.40s: decoded %v, want an error", f, msgs)
		}
	}
}

func TestCodecBatch(t *testing.T) {
	msgs, err := decodeFrame([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"}, {"jsonrpc":"2.0","method":"b"} ,{"jsonrpc":"2.0","id":"x","result":{}}]`))
	if err != nil || len(msgs) != 3 {
		t.Fatalf("%v, %v", msgs, err)
	}
	if r, ok := msgs[1].(*jsonrpc.Request); !ok || r.Method != "b" || r.ID.IsValid() {
		t.Fatalf("second message %#v", msgs[1])
	}
}

// compareWithSDK checks that when the SDK decodes frame, we decode it to
// the same message (and encode that message to the same bytes), and that
// what we decode the SDK decodes too.
func compareWithSDK(t *testing.T, frame []byte) {
	t.Helper()
	if tf := bytes.TrimSpace(frame); len(tf) > 0 && tf[0] == '[' {
		// A batch: jsonrpc.DecodeMessage reads single messages only.
		msgs, err := decodeFrame(frame)
		for _, m := range msgs {
			if b, err := appendMessage(nil, m); err != nil || !json.Valid(b) {
				t.Errorf("%s: message %#v encodes to %s, %v", frame, m, b, err)
			}
		}
		_ = err
		return
	}
	want, werr := jsonrpc.DecodeMessage(frame)
	msgs, gerr := decodeFrame(frame)
	if gerr != nil || len(msgs) != 1 {
		if werr == nil && json.Valid(frame) && bytes.TrimSpace(frame)[0] != '[' {
			t.Errorf("%s: we fail (%v) where the SDK decodes %#v", frame, gerr, want)
		}
		return
	}
	if werr != nil {
		t.Errorf("%s: we decode %#v where the SDK fails: %v", frame, msgs[0], werr)
		return
	}
	wb, err1 := jsonrpc.EncodeMessage(want)
	gb, err2 := appendMessage(nil, msgs[0])
	if (err1 == nil) != (err2 == nil) {
		t.Errorf("%s: encoding errors differ: SDK %v, ours %v", frame, err1, err2)
		return
	}
	// The SDK compacts raw members; we keep them as they came (without
	// newlines), which the other end reads the same.
	var cb bytes.Buffer
	if err2 == nil {
		if err := json.Compact(&cb, gb); err != nil {
			t.Errorf("%s: we encode invalid JSON %s: %v", frame, gb, err)
		}
		if bytes.IndexByte(gb, '\n') >= 0 {
			t.Errorf("%s: we encode a newline: %s", frame, gb)
		}
		gb = cb.Bytes()
	}
	if err1 == nil && !bytes.Equal(wb, gb) {
		t.Errorf("%s:\n SDK encodes %s\n we encode  %s", frame, wb, gb)
	}
}

// FuzzFrames feeds arbitrary bytes in arbitrary pieces to the frame reader
// and each frame to the codec: frames are the stream's non-blank lines,
// never longer than the limit, and the codec agrees with the SDK.
func FuzzFrames(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n"), uint8(3), uint16(64))
	f.Add([]byte("\n\n[{\"jsonrpc\":\"2.0\",\"method\":\"n\"}]\n{\"a\""), uint8(1), uint16(10))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"\u0041","error":{"code":1,"message":"m","data":null}}`), uint8(200), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8, limit uint16) {
		lim := int(limit)
		fr := newFrameReader(&chunkReader{data: data, n: int(chunk) + 1}, lim)
		if lim <= 0 {
			lim = DefaultMaxFrame
		}
		var lines [][]byte
		longest := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			longest = max(longest, len(l))
			l = bytes.TrimRight(l, " \t\r")
			if len(bytes.TrimLeft(l, " \t")) > 0 {
				lines = append(lines, l)
			}
		}
		for i := 0; ; i++ {
			frame, err := fr.next()
			if err == io.EOF {
				if i != len(lines) {
					t.Fatalf("%d frames, want %d", i, len(lines))
				}
				return
			}
			if errors.Is(err, ErrFrameTooLarge) {
				if longest <= lim {
					t.Fatalf("frame %d: %v, but no line is over %d bytes", i, err, lim)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(frame) > lim || bytes.IndexByte(frame, '\n') >= 0 {
				t.Fatalf("frame %q over %d or holding a newline", frame, lim)
			}
			if i >= len(lines) || !bytes.Equal(frame, bytes.TrimRight(lines[i], " \t\r")) {
				t.Fatalf("frame %d %q, want line %q", i, frame, lines)
			}
			compareWithSDK(t, frame)
		}
	})
}

// The connection reads what it writes, over a pipe.
func TestConnRoundTrip(t *testing.T) {
	r, w := io.Pipe()
	c, _ := (&IOTransport{Reader: r, Writer: w}).Connect(context.Background())
	ctx := context.Background()
	id, _ := jsonrpc.MakeID(float64(42))
	sent := []jsonrpc.Message{
		&jsonrpc.Request{ID: id, Method: "tools/call", Params: json.RawMessage("{\n  \"a\": 1\n}")},
		&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"ok":true}`)},
		&jsonrpc.Response{ID: id, Error: errors.Join(errors.New("outer"), &jsonrpc.Error{Code: -32602, Message: "inner"})},
	}
	go func() {
		for _, m := range sent {
			if err := c.Write(ctx, m); err != nil {
				t.Error(err)
			}
		}
	}()
	for i, m := range sent {
		got, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wb, _ := jsonrpc.EncodeMessage(m)
		gb, _ := jsonrpc.EncodeMessage(got)
		if !bytes.Equal(wb, gb) {
			t.Errorf("message %d: read %s, want %s", i, gb, wb)
		}
	}
	done := make(chan error, 1)
	go func() { _, err := c.Read(ctx); done <- err }()
	c.Close()
	if err := <-done; err != io.EOF {
		t.Fatalf("read after close: %v, want EOF", err)
	}
	if err := c.Write(ctx, sent[0]); err == nil {
		t.Fatal("write after close succeeded")
	}
}

// A reader Close cannot wake (a terminal's stdin, say) is read on a
// goroutine of the connection's own, so Read and Close do not wait for it.
func TestConnCloseWithBlockingReader(t *testing.T) {
	r := &stuckReader{release: make(chan struct{})}
	c, _ := (&IOTransport{Reader: r, Writer: nopWriteCloser{io.Discard}}).Connect(context.Background())
	done := make(chan error, 1)
	go func() { _, err := c.Read(context.Background()); done <- err }()
	c.Close()
	if err := <-done; err != io.EOF {
		t.Fatalf("read after close: %v, want EOF", err)
	}
	close(r.release) // let the reading goroutine end, for goleak
}

type stuckReader struct{ release chan struct{} }

func (r *stuckReader) Read([]byte) (int, error) { <-r.release; return 0, io.EOF }
func (r *stuckReader) Close() error             { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// A huge frame is handed over with the buffer it was read into
// (frameReader.detach): the connection decodes it in place, so its
// messages' raw members are slices of it, not of a 12 MB copy, and later
// reads never write over it.
func TestHugeFrameDecodedInPlace(t *testing.T) {
	program := strings.Repeat("x=1;", 1<<18) // 1 MiB
	big := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"code_run","arguments":{"code":"` + program + `"}}}`
	small := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"code_run","arguments":{"code":"return 1"}}}`
	r, w := io.Pipe()
	go func() {
		_, _ = io.WriteString(w, big+"\n"+small+"\n")
		_, _ = io.WriteString(w, small+"\n"+small+"\n")
		w.Close()
	}()
	c, err := (&IOTransport{Reader: r, Writer: nopWriteCloser{io.Discard}}).Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	m, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	params := m.(*jsonrpc.Request).Params
	if cc := c.(*conn); cap(cc.fr.buf) > keepFrame {
		t.Errorf("the reader kept the huge frame's buffer (%d bytes)", cap(cc.fr.buf))
	}
	for range 3 {
		if m, err := c.Read(ctx); err != nil || string(m.(*jsonrpc.Request).Params) != `{"name":"code_run","arguments":{"code":"return 1"}}` {
			t.Fatalf("next message %v, %v", m, err)
		}
	}
	if want := `{"name":"code_run","arguments":{"code":"` + program + `"}}`; string(params) != want {
		t.Errorf("the huge message's params changed after later reads (%d bytes, want %d)", len(params), len(want))
	}
}

// Decoding a frame the connection owns allocates the messages, never a
// copy of the frame.
func TestDecodeOwnedFrameAllocs(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"code_run","arguments":{"code":"` + strings.Repeat("x=1;", 1<<18) + `"}}}`)
	var params []byte
	var m0, m1 goruntime.MemStats
	goruntime.ReadMemStats(&m0)
	msgs, err := decodeOwnedFrame(frame)
	goruntime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	params = msgs[0].(*jsonrpc.Request).Params
	if &params[0] != &frame[bytes.Index(frame, []byte(`{"name"`))] {
		t.Error("params are not a slice of the frame")
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 4<<10 {
		t.Errorf("decoding a %d-byte frame allocated %d bytes, want ≤ 4 KiB", len(frame), alloc)
	}
}
