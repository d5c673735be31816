package fakemcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
	"github.com/codemode/codemode/internal/gosdk/mcp"

	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/dev/fixture"
)

// recording is a small hand-written fixture of a "notes" server.
const recording = `A hand-written recording for the tests.
-- fixture.json --
{"format": "codemode.fixture/v1", "server": "notes", "redact": ["token"]}
-- initialize.json --
{"capabilities": {"tools": {"listChanged": false}, "logging": {}}, "instructions": "Take notes.",
 "protocolVersion": "2025-06-18", "serverInfo": {"name": "notes-server", "title": "Notes", "version": "0.9.1"}}
-- tools.json --
[
  {"name": "get", "description": "Get a note", "annotations": {"readOnlyHint": true},
   "inputSchema": {"type": "object", "properties": {"id": {"type": "number"}, "opts": {"type": "object"}}, "required": ["id"]}},
  {"name": "login", "inputSchema": {"type": "object", "properties": {"user": {"type": "string"}, "token": {"type": "string"}}}}
]
-- calls/0001-get.json --
{"tool": "get", "arguments": {"id": 1, "opts": {"a": 1, "b": 2}},
 "result": {"content": [{"type": "text", "text": "first"}], "structuredContent": {"id": 1, "text": "first"}}, "atMs": 0, "ms": 80}
-- calls/0002-get.json --
{"tool": "get", "arguments": {"id": 1, "opts": {"a": 1, "b": 2}},
 "result": {"content": [{"type": "text", "text": "first, again"}], "structuredContent": {"id": 1, "text": "first, again"}}, "atMs": 1, "ms": 1}
-- calls/0003-get.json --
{"tool": "get", "arguments": {"id": 404}, "error": {"code": -32602, "message": "no note 404"}, "atMs": 2, "ms": 1}
-- calls/0004-get.json --
{"tool": "get", "arguments": {"id": 2}, "result": {"content": [{"type": "text", "text": "gone"}], "isError": true}, "atMs": 3, "ms": 1}
-- calls/0005-login.json --
{"tool": "login", "arguments": {"token": "[REDACTED]", "user": "ann"}, "result": {"content": [{"type": "text", "text": "hello ann"}]}, "atMs": 4, "ms": 1}
`

func parseRecording(t *testing.T) *fixture.Fixture {
	t.Helper()
	fx, err := fixture.Parse([]byte(recording))
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

func fixtureSession(t *testing.T, opts fakemcp.Options) *mcp.ClientSession {
	t.Helper()
	s, err := fakemcp.NewFixtureServer(parseRecording(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, s)
}

// answer calls tool and returns its text, "isError: text", or "rpc CODE: message".
func answer(t *testing.T, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return fmt.Sprintf("rpc %d: %s", rpc.Code, rpc.Message)
	}
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	out := strings.Join(texts, "\n")
	if res.IsError {
		return "isError: " + out
	}
	return out
}

func TestFixtureServerIntroduction(t *testing.T) {
	cs := fixtureSession(t, fakemcp.Options{})
	init := cs.InitializeResult()
	if init.ServerInfo.Name != "notes-server" || init.ServerInfo.Version != "0.9.1" || init.ServerInfo.Title != "Notes" || init.Instructions != "Take notes." {
		t.Errorf("initialize: got %+v, instructions %q", init.ServerInfo, init.Instructions)
	}
	// The recorded logging capability is not replayed: only tools are.
	if caps, _ := json.Marshal(init.Capabilities); string(caps) != `{"tools":{}}` {
		t.Errorf("capabilities: got %s, want the recorded tools capability only", caps)
	}
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(list.Tools)
	for _, want := range []string{`"name":"get"`, `"readOnlyHint":true`, `"name":"login"`, `"required":["id"]`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("tools/list: got %s, want it to contain %s", got, want)
		}
	}
}

func TestFixtureServerAnswers(t *testing.T) {
	cs := fixtureSession(t, fakemcp.Options{})
	tests := []struct {
		name string
		tool string
		args any
		want string // or a regexp, when it starts with ^
	}{
		{"first of two identical", "get", map[string]any{"id": 1, "opts": map[string]any{"a": 1, "b": 2}}, "first"},
		{"second of two, keys reordered", "get", json.RawMessage(`{"opts":{"b":2,"a":1},"id":1.0}`), "first, again"},
		{"both used: the first again", "get", map[string]any{"id": 1, "opts": map[string]any{"b": 2, "a": 1}}, "first"},
		{"a recorded JSON-RPC error", "get", map[string]any{"id": 404}, "rpc -32602: no note 404"},
		{"a recorded tool error", "get", map[string]any{"id": 2}, "isError: gone"},
		{"a redacted argument matches any value", "login", map[string]any{"user": "ann", "token": "tok-live-1234"}, "hello ann"},
		{"unmatched: the nearest and the difference", "get", map[string]any{"id": 3},
			`^isError: fixture: no recorded call of get matches the arguments \{"id":3\}; the nearest recorded arguments \(call \d\) are \{"id":(2|404)\}; difference: /id: got 3, recorded (2|404) \(replay with --match tool`},
		{"unmatched secret is not echoed", "login", map[string]any{"user": "bob", "token": "tok-live-1234"},
			`^isError: .*\{"token":"\[REDACTED\]","user":"bob"\}.*/user: got "bob", recorded "ann"`},
		{"unknown tool is a protocol error", "put", map[string]any{}, `^rpc -32602: unknown tool "put"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := answer(t, cs, tt.tool, tt.args)
			if strings.HasPrefix(tt.want, "^") {
				if !regexp.MustCompile(tt.want).MatchString(got) {
					t.Errorf("got  %s\nwant %s", got, tt.want)
				}
			} else if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFixtureServerMatchTool(t *testing.T) {
	cs := fixtureSession(t, fakemcp.Options{Match: fixture.MatchTool})
	var got []string
	for _, id := range []int{7, 8, 9, 10, 11} {
		got = append(got, answer(t, cs, "get", map[string]any{"id": id}))
	}
	want := []string{"first", "first, again", "rpc -32602: no note 404", "isError: gone", "first"}
	if strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("--match tool answers:\ngot  %s\nwant %s", strings.Join(got, " | "), strings.Join(want, " | "))
	}
}

func TestFixtureServerLatency(t *testing.T) {
	args := map[string]any{"id": 1, "opts": map[string]any{"a": 1, "b": 2}}
	for _, tt := range []struct {
		latency string
		atLeast time.Duration
	}{{"recorded", 80 * time.Millisecond}, {"60ms", 60 * time.Millisecond}} {
		l, err := fakemcp.ParseLatency(tt.latency)
		if err != nil {
			t.Fatal(err)
		}
		cs := fixtureSession(t, fakemcp.Options{Latency: l})
		start := time.Now()
		answer(t, cs, "get", args) // the first recorded call took 80 ms
		if d := time.Since(start); d < tt.atLeast {
			t.Errorf("--latency %s: answered after %v, want at least %v", tt.latency, d, tt.atLeast)
		}
	}
	// A cancelled call does not wait out its latency.
	l, _ := fakemcp.ParseLatency("10m")
	cs := fixtureSession(t, fakemcp.Options{Latency: l})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get", Arguments: args}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled call: got %v, want context.DeadlineExceeded", err)
	}
}

func TestParseLatency(t *testing.T) {
	tests := []struct {
		in      string
		want    fakemcp.Latency
		wantErr bool
	}{
		{"", fakemcp.Latency{}, false},
		{"none", fakemcp.Latency{}, false},
		{"recorded", fakemcp.Latency{Recorded: true}, false},
		{"25ms", fakemcp.Latency{Fixed: 25 * time.Millisecond}, false},
		{"7", fakemcp.Latency{Fixed: 7 * time.Millisecond}, false},
		{"-1ms", fakemcp.Latency{}, true},
		{"soon", fakemcp.Latency{}, true},
	}
	for _, tt := range tests {
		got, err := fakemcp.ParseLatency(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseLatency(%q): got %+v, %v; want %+v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestBuiltin(t *testing.T) {
	fx := fakemcp.Builtin()
	tools, err := fx.ToolList()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if got, want := strings.Join(names, ","), "ticker,echo,slow"; got != want || len(fx.Calls) != 0 {
		t.Errorf("builtin: tools %s and %d calls, want %s and none", got, len(fx.Calls), want)
	}
	// Served as a plain recording, the built-in fake has its tools and no
	// answers: every call is unmatched.
	s, err := fakemcp.NewFixtureServer(fx, fakemcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	if got := answer(t, cs, "ticker", map[string]any{"symbol": "ACME"}); !strings.Contains(got, "the recording has no call of ticker") {
		t.Errorf("ticker from the bare recording: got %q", got)
	}
}

func TestMainWithFixture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txtar")
	if err := os.WriteFile(path, []byte(recording), 0o644); err != nil {
		t.Fatal(err)
	}
	srvIn, cliOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cliIn, srvOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srvIn.Close(); srvOut.Close() })
	var stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- fakemcp.MainWith(context.Background(), srvIn, srvOut, &stderr, fakemcp.MainOptions{Fixture: path, Match: fixture.MatchTool})
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakemcp-test"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: cliIn, Writer: cliOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := answer(t, cs, "get", map[string]any{"id": 99}); got != "first" {
		t.Errorf("get under --match tool: got %q, want first", got)
	}
	cs.Close()
	if got := exitCode(t, code); got != fakemcp.ExitOK {
		t.Errorf("exit: got %d; stderr: %s", got, stderr.String())
	}
}

func TestMainWithBadFixture(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txtar")
	if err := os.WriteFile(bad, []byte("-- tools.json --\n[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing.txtar")} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr syncBuffer
		if got := fakemcp.MainWith(context.Background(), r, w, &stderr, fakemcp.MainOptions{Fixture: path}); got != fakemcp.ExitUsage {
			t.Errorf("%s: exit %d, want %d", path, got, fakemcp.ExitUsage)
		}
		if !strings.Contains(stderr.String(), filepath.Base(path)) {
			t.Errorf("stderr: got %q, want it to name the file", stderr.String())
		}
		r.Close()
		w.Close()
	}
}

func TestMainWithListen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.txtar")
	if err := os.WriteFile(path, []byte(recording), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	code := make(chan int, 1)
	go func() {
		code <- fakemcp.MainWith(ctx, nil, nil, pw, fakemcp.MainOptions{Fixture: path, Listen: "127.0.0.1:0"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := regexp.MustCompile(`http://\S+/mcp`).FindString(line)
	if url == "" {
		t.Fatalf("stderr: got %q, want the address", line)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakemcp-test"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := answer(t, cs, "login", map[string]any{"user": "ann", "token": "x"}); got != "hello ann" {
		t.Errorf("login over HTTP: got %q", got)
	}
	cs.Close()
	cancel()
	if got := exitCode(t, code); got != fakemcp.ExitOK {
		t.Errorf("exit: got %d", got)
	}
}
