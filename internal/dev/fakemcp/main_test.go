package fakemcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"

	"github.com/codemode/codemode/internal/dev/fakemcp"
)

// servePipes runs Main in-process on a fresh pair of OS pipes and returns a
// client session over the other ends and a channel that yields Main's exit
// status. The pipes are pollable on both sides, which is enough to exercise
// Main; the inherited, blocking case is covered by main_unix_test.go.
func servePipes(t *testing.T, ctx context.Context, stderr *syncBuffer) (*mcp.ClientSession, <-chan int) {
	t.Helper()
	srvIn, cliOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cliIn, srvOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Main works on duplicates (see stdiox.Pipes), so the originals stay
	// ours to close.
	t.Cleanup(func() { srvIn.Close(); srvOut.Close() })
	code := make(chan int, 1)
	go func() { code <- fakemcp.Main(ctx, srvIn, srvOut, stderr) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakemcp-test"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: cliIn, Writer: cliOut}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs, code
}

func exitCode(t *testing.T, code <-chan int) int {
	t.Helper()
	select {
	case c := <-code:
		return c
	case <-time.After(30 * time.Second): // a guard against a hang, not a wait
		t.Fatal("Main did not return")
		return -1
	}
}

func readEvents(t *testing.T, path string) []fakemcp.Event {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []fakemcp.Event
	for line := range strings.Lines(string(b)) {
		var ev fakemcp.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("event line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestMainClientCloses(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	t.Setenv(fakemcp.EnvEvents, events)
	var stderr syncBuffer
	cs, code := servePipes(t, context.Background(), &stderr)

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
		Name: "echo", Arguments: map[string]any{"text": "x"}, Meta: mcp.Meta{"callId": "c1"},
	})
	if err != nil || res.IsError {
		t.Fatalf("echo: got %v, %v; want a result", res, err)
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ticker", Arguments: map[string]any{"symbol": "ACME"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	if got := exitCode(t, code); got != fakemcp.ExitOK {
		t.Errorf("exit: got %d, want %d; stderr: %s", got, fakemcp.ExitOK, stderr.String())
	}
	if stderr.String() != "" {
		t.Errorf("stderr: got %q, want nothing", stderr.String())
	}
	var got []string
	for _, ev := range readEvents(t, events) {
		got = append(got, mustJSON(t, ev))
	}
	want := []string{
		`{"kind":"call","seq":1,"tool":"echo","meta":{"callId":"c1"}}`,
		`{"kind":"call","seq":2,"tool":"ticker"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\ngot  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

func TestMainContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	cs, code := servePipes(t, ctx, &stderr)
	defer cs.Close()
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	if got := exitCode(t, code); got != fakemcp.ExitOK {
		t.Errorf("exit: got %d, want %d; stderr: %s", got, fakemcp.ExitOK, stderr.String())
	}
}

func TestMainBadEnvironment(t *testing.T) {
	tests := []struct {
		name, key, value string
		wantLog          string
	}{
		{"crash after zero", fakemcp.EnvCrashAfter, "0", "FAKEMCP_CRASH_AFTER"},
		{"crash after words", fakemcp.EnvCrashAfter, "two", "FAKEMCP_CRASH_AFTER"},
		{"events in a missing directory", fakemcp.EnvEvents, filepath.Join(t.TempDir(), "no", "such", "file"), "FAKEMCP_EVENTS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(tt.key, tt.value)
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			var stderr syncBuffer
			if got := fakemcp.Main(context.Background(), r, w, &stderr); got != fakemcp.ExitUsage {
				t.Errorf("exit: got %d, want %d", got, fakemcp.ExitUsage)
			}
			if !strings.Contains(stderr.String(), tt.wantLog) {
				t.Errorf("stderr: got %q, want it to name %s", stderr.String(), tt.wantLog)
			}
			// Nothing may reach stdout but protocol frames: here, nothing.
			w.Close()
			rest, _ := bufio.NewReader(r).ReadString('\n')
			if rest != "" {
				t.Errorf("stdout: got %q, want nothing", rest)
			}
		})
	}
}
