package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// codemode patch (PATCHES.md): with StreamableHTTPOptions.PreferJSONResponse
// a call whose handler sends nothing before its result is answered with one
// application/json body; one whose handler sends a notification first is
// answered with an event stream carrying both, as without the option.

// preferJSONServer serves a server with two tools: "quiet" answers at once,
// "chatty" sends a progress notification (when asked for one) and a log
// message before answering.
func preferJSONServer(t *testing.T, prefer bool) *httptest.Server {
	t.Helper()
	s := NewServer(&Implementation{Name: "test", Version: "1"}, nil)
	s.AddTool(&Tool{Name: "quiet", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		return &CallToolResult{Content: []Content{&TextContent{Text: "quiet"}}}, nil
	})
	s.AddTool(&Tool{Name: "chatty", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			if err := req.Session.NotifyProgress(ctx, &ProgressNotificationParams{ProgressToken: tok, Progress: 1, Message: "half"}); err != nil {
				return nil, err
			}
		}
		if err := req.Session.Log(ctx, &LoggingMessageParams{Level: "info", Data: "hello"}); err != nil {
			return nil, err
		}
		return &CallToolResult{Content: []Content{&TextContent{Text: "chatty"}}}, nil
	})
	hs := httptest.NewServer(NewStreamableHTTPHandler(func(*http.Request) *Server { return s }, &StreamableHTTPOptions{PreferJSONResponse: prefer}))
	t.Cleanup(hs.Close)
	return hs
}

// post sends one JSON-RPC message on session sid ("" for none) and returns
// the response, its body read whole.
func post(t *testing.T, url, sid, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(sessionIDHeader, sid)
		req.Header.Set(protocolVersionHeader, protocolVersion20250618)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// session initializes a session at url and returns its id.
func session(t *testing.T, url string) string {
	t.Helper()
	resp, body := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+protocolVersion20250618+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	sid := resp.Header.Get(sessionIDHeader)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %q, session %q", resp.StatusCode, body, sid)
	}
	if resp, body := post(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %q", resp.StatusCode, body)
	}
	if resp, body := post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("setLevel: %d %q", resp.StatusCode, body)
	}
	return sid
}

// sseData returns the data of the body's SSE events named "message".
func sseData(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for evt, err := range scanEventsLimited(bufio.NewReader(strings.NewReader(body)), 0) {
		if err != nil {
			t.Fatalf("events %q: %v", body, err)
		}
		if evt.Name == "" || evt.Name == "message" {
			out = append(out, string(evt.Data))
		}
	}
	return out
}

func TestPreferJSONResponse(t *testing.T) {
	hs := preferJSONServer(t, true)
	url := hs.URL
	sid := session(t, url)

	// Nothing before the result: one JSON body, with its length.
	resp, body := post(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"quiet","arguments":{}}}`)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "application/json" {
		t.Fatalf("quiet call: %d, Content-Type %q, body %q", resp.StatusCode, ct, body)
	}
	if resp.ContentLength != int64(len(body)) || len(resp.TransferEncoding) != 0 {
		t.Errorf("quiet call: Content-Length %d, Transfer-Encoding %v for a body of %d bytes", resp.ContentLength, resp.TransferEncoding, len(body))
	}
	var r struct {
		ID     int64
		Result CallToolResult
	}
	if err := json.Unmarshal([]byte(body), &r); err != nil || r.ID != 3 || len(r.Result.Content) != 1 {
		t.Fatalf("quiet call: %q: %v", body, err)
	}

	// A progress notification and a log message before the result: an event
	// stream with the three, in order.
	resp, body = post(t, url, sid, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"chatty","arguments":{},"_meta":{"progressToken":"p"}}}`)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("chatty call: %d, Content-Type %q, body %q", resp.StatusCode, ct, body)
	}
	data := sseData(t, body)
	if len(data) != 3 || !strings.Contains(data[0], `"notifications/progress"`) || !strings.Contains(data[1], `"notifications/message"`) || !strings.Contains(data[2], `"id":4`) {
		t.Fatalf("chatty call: events %q", data)
	}

	// An error reply is a reply like any other.
	resp, body = post(t, url, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nosuch","arguments":{}}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.Contains(body, `"id":5`) || !strings.Contains(body, `"error"`) {
		t.Fatalf("unknown tool: %d, Content-Type %q, body %q", resp.StatusCode, ct, body)
	}
}

func TestPreferJSONResponseOff(t *testing.T) {
	hs := preferJSONServer(t, false)
	sid := session(t, hs.URL)
	resp, body := post(t, hs.URL, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"quiet","arguments":{}}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || len(sseData(t, body)) != 1 {
		t.Fatalf("quiet call without the option: Content-Type %q, body %q", ct, body)
	}
}

// The SDK's client gets both kinds of reply right, the notifications of an
// event stream included.
func TestPreferJSONResponseClient(t *testing.T) {
	hs := preferJSONServer(t, true)
	progress := make(chan string, 3)
	c := NewClient(&Implementation{Name: "c", Version: "1"}, &ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *ProgressNotificationClientRequest) {
			progress <- req.Params.Message
		},
	})
	ctx := context.Background()
	cs, err := c.Connect(ctx, &StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for range 3 {
		res, err := cs.CallTool(ctx, &CallToolParams{Name: "quiet", Arguments: map[string]any{}})
		if err != nil || res.Content[0].(*TextContent).Text != "quiet" {
			t.Fatalf("quiet: %v, %v", res, err)
		}
		p := &CallToolParams{Name: "chatty", Arguments: map[string]any{}}
		p.SetProgressToken("tok")
		res, err = cs.CallTool(ctx, p)
		if err != nil || res.Content[0].(*TextContent).Text != "chatty" {
			t.Fatalf("chatty: %v, %v", res, err)
		}
	}
	// Each call's notification reaches the client (its handler runs on its
	// own, so it may come after the call's result).
	for range 3 {
		if m := <-progress; m != "half" {
			t.Fatalf("progress notification %q", m)
		}
	}
}
