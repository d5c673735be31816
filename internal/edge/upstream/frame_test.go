package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
)

var discardLog = slog.New(slog.DiscardHandler)

// chunkReader returns data in reads of the given sizes (cycled), so that
// frames are split across reads at chosen places.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(r.data)
	if len(r.sizes) > 0 {
		n = min(n, max(r.sizes[r.i%len(r.sizes)], 1))
		r.i++
	}
	n = copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// filter runs data through a frameFilter with the given limit, read in
// chunks of sizes, and returns what came out; reads ask for readSize bytes
// (the SDK's decoder asks for what its buffer has room for).
func filter(t testing.TB, data []byte, limit int, sizes []int, readSize int) []byte {
	t.Helper()
	f := newFrameFilter(&chunkReader{data: data, sizes: sizes}, limit, discardLog)
	var out bytes.Buffer
	buf := make([]byte, readSize)
	for {
		n, err := f.Read(buf)
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes()
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
	}
}

func TestFrameFilterPassesFrames(t *testing.T) {
	tests := []struct {
		name     string
		in, want string
	}{
		{"one frame", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"},
		{"several", "{\"a\":1}\n{\"b\":2}\n[1,2]\n", "{\"a\":1}\n{\"b\":2}\n[1,2]\n"},
		{"CRLF kept", "{\"a\":1}\r\n{\"b\":2}\r\n", "{\"a\":1}\r\n{\"b\":2}\r\n"},
		{"last frame without newline", "{\"a\":1}\n{\"b\":2}", "{\"a\":1}\n{\"b\":2}"},
		{"blank lines dropped", "\n  \n{\"a\":1}\n\r\n\t\n{\"b\":2}\n \n", "{\"a\":1}\n{\"b\":2}\n"},
		{"exactly at the limit", strings.Repeat("x", 64) + "\n", strings.Repeat("x", 64) + "\n"},
		{"not JSON, still passed", "garbage\n", "garbage\n"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, sizes := range [][]int{nil, {1}, {3, 7}} {
				if got := filter(t, []byte(tt.in), 64, sizes, 512); string(got) != tt.want {
					t.Errorf("chunks %v: got %q, want %q", sizes, got, tt.want)
				}
			}
		})
	}
}

// replyTo checks that line is the synthesized error reply for id.
func replyTo(t *testing.T, line []byte, wantID string, limit, size int64) {
	t.Helper()
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		t.Fatalf("synthesized reply %s does not decode: %v", line, err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		t.Fatalf("synthesized reply %s: got %T, want a response", line, msg)
	}
	var raw struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &raw)
	if string(raw.ID) != wantID {
		t.Errorf("synthesized reply: got id %s, want %s", raw.ID, wantID)
	}
	var rpcErr *jsonrpc.Error
	if !errors.As(resp.Error, &rpcErr) {
		t.Fatalf("synthesized reply: got error %v, want a *jsonrpc.Error", resp.Error)
	}
	d, ok := frameTooLarge(rpcErr)
	if !ok || d.Limit != limit || d.Bytes != size {
		t.Errorf("synthesized reply: got code %d data %s, want %d with limit %d and bytes %d", rpcErr.Code, rpcErr.Data, frameTooLargeCode, limit, size)
	}
}

func TestFrameFilterReplacesOversizedReply(t *testing.T) {
	big := strings.Repeat("y", 300)
	tests := []struct {
		name   string
		frame  string
		wantID string // "" if the frame must be dropped
	}{
		{"number id first", `{"jsonrpc":"2.0","id":7,"result":{"text":"` + big + `"}}`, `7`},
		{"string id", `{"jsonrpc":"2.0","id":"abc-1","result":{"text":"` + big + `"}}`, `"abc-1"`},
		{"id after a large result", `{"jsonrpc":"2.0","result":{"text":"` + big + `"},"id":42}`, `42`},
		{"id after an error", `{"jsonrpc":"2.0","error":{"code":1,"message":"` + big + `"},"id":43}`, `43`},
		{"escaped quotes and backslashes", `{"result":{"text":"\"id\":99, \\\"id\\\": 5 \\\\\" ` + big + `"},"jsonrpc":"2.0","id":3}`, `3`},
		{"ids in nested objects ignored", `{"result":{"id":99,"items":[{"id":98},{"x":["id",{"id":97}]}],"t":"` + big + `"},"jsonrpc":"2.0","id":4}`, `4`},
		{"escaped key", `{"jsonrpc":"2.0","\u0069d":12,"result":"` + big + `"}`, `12`},
		{"string id with escapes", `{"jsonrpc":"2.0","id":"a\"b\\c\u00e9","result":"` + big + `"}`, `"a\"b\\c\u00e9"`},
		{"duplicate id: the last", `{"jsonrpc":"2.0","id":1,"result":"` + big + `","id":2}`, `2`},
		{"white space everywhere", " { \"jsonrpc\" : \"2.0\" , \"result\" : \"" + big + "\" , \"id\" : -5e0 } ", `-5e0`},
		{"CRLF", `{"jsonrpc":"2.0","id":8,"result":"` + big + "\"}\r", `8`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}`, ""},
		{"request from the server", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"x":"` + big + `"}}`, ""},
		{"method after the id", `{"jsonrpc":"2.0","id":1,"params":{"x":"` + big + `"},"method":"ping"}`, ""},
		{"batch", `[{"jsonrpc":"2.0","id":1,"result":"` + big + `"}]`, ""},
		{"garbage", `not json ` + big, ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"` + big + `"}}`, ""},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"result":"` + big + `"}`, ""},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"result":"` + big + `"}`, ""},
		{"huge number id", `{"jsonrpc":"2.0","id":1e999,"result":"` + big + `"}`, ""},
		{"id too long", `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", maxIDLen) + `","result":"` + big + `"}`, ""},
		{"truncated", `{"jsonrpc":"2.0","result":"` + big, ""},
	}
	const limit = 256
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := "{\"before\":1}\n" + tt.frame + "\n{\"after\":2}\n"
			for _, sizes := range [][]int{nil, {1}, {5, 13}, {limit}, {limit + 1}} {
				out := filter(t, []byte(in), limit, sizes, 4096)
				lines := strings.SplitAfter(string(out), "\n")
				if lines[len(lines)-1] == "" {
					lines = lines[:len(lines)-1]
				}
				want := 2
				if tt.wantID != "" {
					want = 3
				}
				if len(lines) != want || lines[0] != "{\"before\":1}\n" || lines[len(lines)-1] != "{\"after\":2}\n" {
					t.Fatalf("chunks %v: got %q, want the frames around it and %d line(s) in all", sizes, out, want)
				}
				if tt.wantID != "" {
					replyTo(t, []byte(lines[1]), tt.wantID, limit, int64(len(tt.frame)))
				}
			}
		})
	}
}

// TestFrameFilterEverySplit feeds a stream of small and oversized frames
// split in two at every position, and in one-byte reads.
func TestFrameFilterEverySplit(t *testing.T) {
	const limit = 64
	in := "{\"id\":1,\"result\":\"" + strings.Repeat("a", 80) + "\"}\n" +
		"{\"id\":2,\"result\":{}}\n" +
		"{\"result\":\"" + strings.Repeat("b\\\"", 40) + "\",\"id\":\"s\"}\n" +
		"\n" +
		"{\"method\":\"n\",\"params\":\"" + strings.Repeat("c", 80) + "\"}\n" +
		"{\"id\":3,\"result\":[]}"
	want := filter(t, []byte(in), limit, nil, 4096)
	if n := bytes.Count(want, []byte("\n")); n != 3 || !bytes.Contains(want, []byte("{\"id\":2,\"result\":{}}\n")) || !bytes.HasSuffix(want, []byte("{\"id\":3,\"result\":[]}")) {
		t.Fatalf("got %q, want two replies, frame 2 and frame 3", want)
	}
	for k := 0; k <= len(in); k++ {
		for _, readSize := range []int{1, 7, 4096} {
			if got := filter(t, []byte(in), limit, []int{k, len(in)}, readSize); !bytes.Equal(got, want) {
				t.Fatalf("split at %d, reads of %d: got %q, want %q", k, readSize, got, want)
			}
		}
	}
}

// genReader yields prefix, then n bytes of 'x', then suffix, without
// holding the middle.
type genReader struct {
	prefix, suffix []byte
	n              int
}

func (g *genReader) Read(p []byte) (int, error) {
	switch {
	case len(g.prefix) > 0:
		n := copy(p, g.prefix)
		g.prefix = g.prefix[n:]
		return n, nil
	case g.n > 0:
		n := min(len(p), g.n)
		for i := range p[:n] {
			p[i] = 'x'
		}
		g.n -= n
		return n, nil
	case len(g.suffix) > 0:
		n := copy(p, g.suffix)
		g.suffix = g.suffix[n:]
		return n, nil
	}
	return 0, io.EOF
}

func TestFrameFilterMemoryBounded(t *testing.T) {
	const (
		limit = 64 << 10
		n     = 50 << 20
	)
	prefix := []byte(`{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"`)
	suffix := []byte(`"}]},"id":42}` + "\n" + `{"jsonrpc":"2.0","id":43,"result":{}}` + "\n")
	f := newFrameFilter(&genReader{prefix: prefix, suffix: suffix, n: n}, limit, discardLog)
	buf := make([]byte, 32<<10)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	var out []byte
	for {
		k, err := f.Read(buf)
		out = append(out, buf[:k]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms1)
	if got := ms1.TotalAlloc - ms0.TotalAlloc; got > 4*limit+(1<<20) {
		t.Errorf("filtering a %d-byte frame allocated %d bytes, want about the %d-byte limit", n, got, limit)
	}
	lines := bytes.SplitAfter(out, []byte("\n"))
	if len(lines) != 3 || string(lines[1]) != `{"jsonrpc":"2.0","id":43,"result":{}}`+"\n" {
		t.Fatalf("got %q, want the error reply and the next frame", out)
	}
	replyTo(t, lines[0], "42", limit, int64(len(prefix)+n+len(suffix))-int64(len(lines[1]))-1)
}

// A large frame under the limit goes through whole, and above the SDK's
// own default.
func TestFrameFilterLargeValidFrame(t *testing.T) {
	prefix := []byte(`{"jsonrpc":"2.0","id":9,"result":{"text":"`)
	suffix := []byte(`"}}` + "\n")
	const n = 20 << 20
	f := newFrameFilter(&genReader{prefix: prefix, suffix: suffix, n: n}, 32<<20, discardLog)
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(prefix)+n+len(suffix) || !bytes.HasPrefix(out, prefix) || !bytes.HasSuffix(out, suffix) {
		t.Fatalf("got %d bytes, want the %d-byte frame unchanged", len(out), len(prefix)+n+len(suffix))
	}
}

func TestTooLargeReplyDecodes(t *testing.T) {
	for _, id := range []string{`1`, `"x"`, `-2.5`, `"\u00e9\"\\"`} {
		replyTo(t, tooLargeReply([]byte(id), 100, 12345), id, 100, 12345)
	}
	// A server's own -32099 is not ours.
	for _, data := range []string{``, `{}`, `{"codemode":"other","limit":1}`, `"frame-too-large"`} {
		e := &jsonrpc.Error{Code: frameTooLargeCode, Message: "m", Data: json.RawMessage(data)}
		if _, ok := frameTooLarge(e); ok {
			t.Errorf("frameTooLarge(data %s) = true, want false", data)
		}
	}
}

// model is what the filter should produce for one input line.
type modelLine struct {
	line     []byte // the line as read, newline included if any
	over     bool
	replyID  []byte // over and a reply with a usable id
	isJSON   bool   // the content is one valid JSON value
	blankish bool
}

func modelOf(data []byte, limit int) []modelLine {
	var out []modelLine
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		content := bytes.TrimSuffix(line, []byte("\n"))
		m := modelLine{line: line, over: len(content) > limit, blankish: blank(content), isJSON: json.Valid(content)}
		switch {
		case m.over && m.isJSON:
			// A JSON decoder's view of the reply.
			var obj map[string]json.RawMessage
			if json.Unmarshal(content, &obj) == nil {
				_, method := obj["method"]
				if id, ok := obj["id"]; ok && !method && len(id) <= maxIDLen && validID(id) {
					m.replyID = id
				}
			}
		case m.over:
			// Not JSON: whatever the scanner makes of it, in one piece.
			var s idScanner
			s.feed(content)
			m.replyID, _ = s.replyID()
		}
		out = append(out, m)
	}
	return out
}

func isOurReply(line []byte) bool {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		return false
	}
	resp, ok := msg.(*jsonrpc.Response)
	var e *jsonrpc.Error
	if !ok || !errors.As(resp.Error, &e) {
		return false
	}
	_, ours := frameTooLarge(e)
	return ours
}

func FuzzFrameFilter(f *testing.F) {
	f.Add([]byte("{\"id\":1,\"result\":{}}\n{\"id\":2,\"result\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}\n"), uint64(1), uint8(32))
	f.Add([]byte("{\"result\":\"a\\\"b\",\"id\":\"q\"}\n\n{\"method\":\"m\"}\n[1]\n"), uint64(7), uint8(8))
	f.Add([]byte("{\"\\u0069d\":3,\"r\":[{\"id\":4}]}\r\ngarbage"), uint64(3), uint8(4))
	f.Fuzz(func(t *testing.T, data []byte, seed uint64, limit8 uint8) {
		limit := int(limit8) + 1
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		sizes := make([]int, 8)
		for i := range sizes {
			sizes[i] = 1 + rng.IntN(2*limit)
		}
		out := filter(t, data, limit, sizes, 1+rng.IntN(64))
		lines := bytes.SplitAfter(out, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1]
		}
		model := modelOf(data, limit)
		j := 0
		next := func() []byte {
			if j < len(lines) {
				return lines[j]
			}
			return nil
		}
		for k, m := range model {
			switch {
			case !m.over && m.blankish:
				// dropped
			case !m.over:
				if got := next(); !bytes.Equal(got, m.line) {
					t.Fatalf("line %d (%q): got %q, want it unchanged", k, m.line, got)
				}
				j++
			case m.replyID != nil:
				got := next()
				if !isOurReply(got) || !bytes.Contains(got, append([]byte(`"id":`), m.replyID...)) {
					t.Fatalf("oversized reply %d (id %s): got %q, want our error reply for its id", k, m.replyID, got)
				}
				j++
			default:
				// not a reply: dropped
			}
		}
		if j != len(lines) {
			t.Fatalf("got %d lines, accounted for %d: %q", len(lines), j, out)
		}
	})
}
