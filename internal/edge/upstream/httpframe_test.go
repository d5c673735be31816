package upstream

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/tools/errs"
)

func sseFilterOf(t *testing.T, in string, limit int, sizes []int) string {
	t.Helper()
	f := newSSEFilter(io.NopCloser(&chunkReader{data: []byte(in), sizes: sizes}), limit, discardLog)
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	return string(out)
}

func TestSSEFilter(t *testing.T) {
	const limit = 128
	big := strings.Repeat("z", 200)
	reply := func(id string, size int) string {
		return "data: " + string(tooLargeReply([]byte(id), limit, int64(size))) + "\n"
	}
	small := "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n: a comment\n\nevent: message\nretry: 10\ndata: x\n\n"
	tests := []struct {
		name     string
		in, want string
	}{
		{"small events pass", small, small},
		{"CRLF events pass", "id: 1\r\ndata: {}\r\n\r\n", "id: 1\r\ndata: {}\r\n\r\n"},
		{"a stream that ends inside an event", "data: {}\n", "data: {}\n"},
		{
			"an oversized reply keeps its event id",
			"id: 7_0\ndata: {\"jsonrpc\":\"2.0\",\"result\":\"" + big + "\",\"id\":5}\n\nid: 8\ndata: {}\n\n",
			"id: 7_0\n" + reply("5", len("id: 7_0\ndata: {\"jsonrpc\":\"2.0\",\"result\":\""+big+"\",\"id\":5}\n\n")) + "\nid: 8\ndata: {}\n\n",
		},
		{
			"data over several lines, CRLF",
			"data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":\"s\",\"result\":\"" + big + "\"}\r\n\r\n",
			reply(`"s"`, len("data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":\"s\",\"result\":\""+big+"\"}\r\n\r\n")) + "\n",
		},
		{
			"an oversized notification: only its id is kept",
			"id: 9\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":\"" + big + "\"}\n\ndata: {}\n\n",
			"id: 9\n\ndata: {}\n\n",
		},
		{
			"an oversized event of another name is dropped",
			"event: other\ndata: {\"id\":1,\"result\":\"" + big + "\"}\n\ndata: {}\n\n",
			"data: {}\n\n",
		},
		{
			"a stream that ends inside an oversized event",
			"data: {\"id\":3,\"result\":\"" + big + "\"}",
			reply("3", len("data: {\"id\":3,\"result\":\""+big+"\"}")) + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, sizes := range [][]int{nil, {1}, {7, 3}, {limit}} {
				if got := sseFilterOf(t, tt.in, limit, sizes); got != tt.want {
					t.Errorf("chunks %v:\ngot  %q\nwant %q", sizes, got, tt.want)
				}
			}
			for k := 0; k <= len(tt.in); k++ {
				if got := sseFilterOf(t, tt.in, limit, []int{k, len(tt.in)}); got != tt.want {
					t.Fatalf("split at %d:\ngot  %q\nwant %q", k, got, tt.want)
				}
			}
		})
	}
}

// fakeRoundTripper answers every request with resp.
type fakeRoundTripper struct{ resp func() *http.Response }

func (f fakeRoundTripper) RoundTrip(*http.Request) (*http.Response, error) { return f.resp(), nil }

// trackedBody records how much of it was read, and whether it was closed.
type trackedBody struct {
	r      io.Reader
	read   int
	closed bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += n
	return n, err
}

func (b *trackedBody) Close() error { b.closed = true; return nil }

func TestFrameLimitTransport(t *testing.T) {
	const limit = 1024
	bigReply := `{"jsonrpc":"2.0","result":{"text":"` + strings.Repeat("w", 100_000) + `"},"id":3}`
	tests := []struct {
		name        string
		status      int
		ctype       string
		length      int64 // -1: unknown
		body        string
		want        string // "" with wantReplyTo set: our reply
		wantReplyTo string
		maxRead     int // at most this much of the body is read
	}{
		{name: "small JSON, unknown length", status: 200, ctype: "application/json", length: -1, body: `{"jsonrpc":"2.0","id":3,"result":{}}`, want: `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{name: "small JSON, known length", status: 200, ctype: "application/json; charset=utf-8", length: 36, body: `{"jsonrpc":"2.0","id":3,"result":{}}`, want: `{"jsonrpc":"2.0","id":3,"result":{}}`},
		{name: "big JSON, unknown length", status: 200, ctype: "application/json", length: -1, body: bigReply, wantReplyTo: "3", maxRead: limit + 1},
		{name: "big JSON, known length: not read at all", status: 200, ctype: "application/json", length: int64(len(bigReply)), body: bigReply, wantReplyTo: "3", maxRead: 0},
		{name: "error status: cut at the limit", status: 400, ctype: "application/json", length: -1, body: bigReply, want: bigReply[:limit], maxRead: limit + filterBufSize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &trackedBody{r: strings.NewReader(tt.body)}
			rt := &frameLimitTransport{limit: limit, log: discardLog, base: fakeRoundTripper{func() *http.Response {
				return &http.Response{StatusCode: tt.status, Header: http.Header{"Content-Type": {tt.ctype}}, ContentLength: tt.length, Body: body}
			}}}
			req, err := http.NewRequest(http.MethodPost, "http://x/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("ReadAll: %v", err)
			}
			resp.Body.Close()
			if tt.wantReplyTo != "" {
				replyTo(t, got, tt.wantReplyTo, limit, max(tt.length, 0))
			} else if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if tt.maxRead > 0 || tt.wantReplyTo != "" {
				if body.read > tt.maxRead {
					t.Errorf("read %d bytes of the body, want at most %d", body.read, tt.maxRead)
				}
			}
			if !body.closed {
				t.Error("the body was not closed")
			}
		})
	}
}

// Without a request to read the id from, the reply's own id is found.
func TestJSONBodyIDFromTheReply(t *testing.T) {
	reply := []byte(`{"jsonrpc":"2.0","result":"` + strings.Repeat("v", 5000) + `","id":"r-1"}`)
	b := &jsonBody{body: io.NopCloser(bytes.NewReader(reply)), limit: 100, length: -1, log: discardLog}
	got, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	replyTo(t, got, `"r-1"`, 100, int64(len(reply)))
}

func TestHTTPOversizedReplyFailsOnlyItsCall(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		name := "event stream"
		if jsonResponse {
			name = "JSON response"
		}
		t.Run(name, func(t *testing.T) {
			handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fakemcp.NewServer() },
				&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
			ts := httptest.NewServer(handler)
			defer ts.Close()
			h := start(t, map[string]config.Server{"web": {Transport: config.TransportHTTP, URL: ts.URL, MaxFrameBytes: smallLimit}}, Options{})

			res := h.echo("web", "big", strings.Repeat("a", bigText))
			wantCode(t, res, errs.CodeResultTooLarge)
			wantMessage(t, res, `"web"`, "65536")
			res = h.echo("web", "too-big", strings.Repeat("a", smallLimit))
			wantCode(t, res, errs.CodeArgumentsTooLarge)
			wantOK(t, h.echo("web", "after", "small"))
			h.wantUntouched("web")
			h.m.Close()
		})
	}
}
