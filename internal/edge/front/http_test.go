package front

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/httpfence"
	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// httpFront serves code mode (per-call unless mode says otherwise) over
// streamable HTTP on a loopback listener, with a tool "wait" whose body
// blocks until release is closed, and returns the endpoint.
type httpFront struct {
	srv      *Server
	endpoint string
	started  chan struct{} // a "wait" call started
	release  chan struct{}
}

func newHTTPFront(t *testing.T, replica string, mode runtime.Mode, opts HTTPOptions) *httpFront {
	t.Helper()
	host := scope.NewHost("host")
	t.Cleanup(func() { host.Dispose() })
	reg := tools.New(tools.Options{})
	f := &httpFront{started: make(chan struct{}, 16), release: make(chan struct{})}
	if _, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__fake__wait", Description: "Waits.",
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			f.started <- struct{}{}
			select {
			case <-f.release:
				return tools.TextResult("released"), nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}}); err != nil {
		t.Fatal(err)
	}
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{Mode: mode}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), Options{Registry: reg, Preset: preset, Replica: replica})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	f.srv = srv
	ts := httptest.NewUnstartedServer(nil)
	opts.Fence.Listen = ts.Listener.Addr().String()
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = h
	ts.Start()
	t.Cleanup(ts.Close)
	f.endpoint = ts.URL + "/mcp"
	return f
}

// post sends one JSON-RPC message with the given Host and session id and
// returns the status, the session id the server set, and the body.
func (f *httpFront) post(t *testing.T, host, session, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", f.endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if session != "" {
		req.Header.Set(SessionIDHeader, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get(SessionIDHeader), string(b)
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func (f *httpFront) connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: f.endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Behind a reverse proxy the listener is loopback but Host is the public
// name. The fence admits a trusted name and refuses any other; the SDK's
// own localhost check (which refused every non-loopback Host on a
// loopback listener, trusted or not) must not decide.
func TestTrustedHostOnLoopbackListener(t *testing.T) {
	f := newHTTPFront(t, "", runtime.ModePerCall, HTTPOptions{Fence: httpfence.Config{TrustedHosts: []string{"mcp.example.test"}}})
	tests := []struct {
		host string
		want int
	}{
		{"mcp.example.test", http.StatusOK},
		{"mcp.example.test:443", http.StatusOK},
		{"evil.example", http.StatusForbidden},
		{"", http.StatusOK}, // 127.0.0.1:<listen port>
	}
	for _, tt := range tests {
		status, _, body := f.post(t, tt.host, "", initialize)
		if status != tt.want {
			t.Errorf("Host %q: got %d %q, want %d", tt.host, status, body, tt.want)
		}
		if status == http.StatusForbidden && !strings.Contains(body, "DNS-rebinding fence") {
			t.Errorf("Host %q: refused by something other than our fence: %q", tt.host, body)
		}
	}
}

// Session ids name the replica; an id this process did not hand out —
// another replica's, or one of a process that died — is 404, the MCP rule
// that makes the client start a new session.
func TestSessionIDsNameTheReplica(t *testing.T) {
	f := newHTTPFront(t, "r1", runtime.ModePersistent, HTTPOptions{})
	status, sid, body := f.post(t, "", "", initialize)
	if status != http.StatusOK || !strings.HasPrefix(sid, "r1.") || len(sid) < len("r1.")+26 {
		t.Fatalf("initialize: got %d, session id %q, %q; want 200 and r1.<random>", status, sid, body)
	}
	for _, foreign := range []string{"r2." + strings.TrimPrefix(sid, "r1."), "r1.AAAAAAAAAAAAAAAAAAAAAAAAAA", "nope"} {
		if status, _, body := f.post(t, "", foreign, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); status != http.StatusNotFound {
			t.Errorf("session %q: got %d %q, want 404", foreign, status, body)
		}
	}
	if _, err := New(context.Background(), Options{Registry: tools.New(tools.Options{}), Replica: "Bad_Name"}); err == nil {
		t.Error("a replica name outside ReplicaPattern was accepted")
	}
}

// Stateless: no session id, and any request is served on its own; per-call
// code_run works, and so does a second client that never initialized with
// this process (what a fleet's other replica sees).
func TestStateless(t *testing.T) {
	f := newHTTPFront(t, "r1", runtime.ModePerCall, HTTPOptions{Stateless: true})
	status, sid, _ := f.post(t, "", "", initialize)
	if status != http.StatusOK || sid != "" {
		t.Fatalf("initialize: got %d and session id %q, want 200 and none", status, sid)
	}
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"code_run","arguments":{"code":"return 6 * 7"}}}`
	status, _, body := f.post(t, "", "", call)
	if status != http.StatusOK || !strings.Contains(body, `"structuredContent":{"value":42`) {
		t.Fatalf("code_run without a session: got %d %q", status, body)
	}
	cs := f.connect(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": "return 1 + 1"}})
	if err != nil || res.IsError {
		t.Fatalf("SDK client, stateless: %v %v", err, res)
	}
}

// Drain lets a running call finish and deliver its reply, refuses new
// sessions meanwhile, then ends the sessions.
func TestDrainDeliversRunningCalls(t *testing.T) {
	f := newHTTPFront(t, "r1", runtime.ModePersistent, HTTPOptions{})
	cs := f.connect(t)
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": "var kept = 1"}}); err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	got := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": `return await tools.mcp__fake__wait({}) + " " + kept`}})
		got <- result{res, err}
	}()
	<-f.started
	// Drain sets the flag first thing; set it here too so that the checks
	// below need not wait for the goroutine.
	f.srv.draining.Store(true)
	drained := make(chan error, 1)
	go func() { drained <- f.srv.Drain(context.Background()) }()
	// Until the call ends nothing may end: the drain waits, and a new
	// session is refused.
	if status, _, _ := f.post(t, "", "", initialize); status != http.StatusServiceUnavailable {
		t.Errorf("new session while draining: got %d, want 503", status)
	}
	select {
	case err := <-drained:
		t.Fatalf("Drain returned (%v) while a call was running", err)
	default:
	}
	close(f.release)
	r := <-got
	if r.err != nil || r.res.IsError || text(r.res) != `"released 1"` {
		t.Fatalf("the running call: got %v %v, want its result", r.err, r.res)
	}
	if err := <-drained; err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if n := countSessions(f.srv); n != 0 {
		t.Errorf("%d sessions left after Drain", n)
	}
}

// A call that outlives the drain timeout does not hold the shutdown.
func TestDrainTimeout(t *testing.T) {
	f := newHTTPFront(t, "", runtime.ModePerCall, HTTPOptions{})
	cs := f.connect(t)
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": `await tools.mcp__fake__wait({})`}})
	<-f.started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := f.srv.Drain(ctx); err != context.DeadlineExceeded {
		t.Errorf("Drain with a stuck call: got %v, want context.DeadlineExceeded", err)
	}
	close(f.release)
}

func countSessions(s *Server) int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// responsesIn reads the SDK's own encoding: a response frame counts, a
// request or notification does not, whatever the id looks like.
func TestResponsesIn(t *testing.T) {
	ids := []any{float64(7), "abc", `we"ird,"result":`, "r1.x"}
	for _, raw := range ids {
		id, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			msg  jsonrpc.Message
			want int
		}{
			{&jsonrpc.Response{ID: id, Result: json.RawMessage(`{"method":"x"}`)}, 1},
			{&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: 1, Message: "m"}}, 1},
			{&jsonrpc.Request{ID: id, Method: "ping"}, 0},
			{&jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"id":1,"result":2}`)}, 0},
		} {
			b, err := jsonrpc.EncodeMessage(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if got := responsesIn(append(b, '\n')); got != tt.want {
				t.Errorf("%s: got %d, want %d", b, got, tt.want)
			}
		}
	}
	batch := `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":"2","error":{"code":1,"message":"m"}}]`
	if got := responsesIn([]byte(batch)); got != 2 {
		t.Errorf("batch: got %d, want 2", got)
	}
}

// A program over maxCodeBytes sent over HTTP (5 MB, as the hostile suite's 12 MB) is the same tool error as over
// stdio (PROGRAM_TOO_LARGE, which teaches), not the transport's 413, up to
// the transport's own bound (a stdio frame's); past it, 413.
func TestOversizedProgramOverHTTPIsAToolError(t *testing.T) {
	f := newHTTPFront(t, "r1", runtime.ModePerCall, HTTPOptions{})
	cs := f.connect(t)
	program := strings.Repeat("x=1;", 1_250_000) // 5 MB: past the SDK's 4 MiB body bound
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": program}})
	if err != nil {
		t.Fatalf("a 5 MB program: %v, want a tool error", err)
	}
	var code any
	if e, ok := res.Meta["codemode/error"].(map[string]any); ok {
		code = e["code"]
	}
	// The registry's argument bound (4 MiB by default) sees it before
	// code_run's own program bound (256 KiB).
	if !res.IsError || (code != "ARGUMENTS_TOO_LARGE" && code != "PROGRAM_TOO_LARGE") {
		t.Fatalf("a 5 MB program: isError %v, code %v, %.300s", res.IsError, code, text(res))
	}
	// The session goes on.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": "return 6 * 7"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "42") {
		t.Fatalf("after it: %v, %+v", err, res)
	}
	status, _, _ := f.post(t, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"`+strings.Repeat("x", 17<<20)+`"}}`)
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("a 17 MiB body: status %d, want 413", status)
	}
}
