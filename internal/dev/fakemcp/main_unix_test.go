//go:build unix

package fakemcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/codemode/codemode/internal/gosdk/mcp"

	"github.com/codemode/codemode/internal/dev/fakemcp"
)

// startChild runs the test binary as the fake server (see TestMain) with
// inherited, blocking stdio pipes, as an MCP client would run
// `codemode fakemcp`.
func startChild(t *testing.T, env ...string) (*mcp.ClientSession, *exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1"}, env...)...)
	stderr := new(syncBuffer)
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakemcp-test"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs, cmd, stderr
}

// fifoEvents makes a named pipe for FAKEMCP_EVENTS and streams the child's
// events from it, so the test learns of each one as it happens instead of
// polling a file. The channel closes when the child exits.
func fifoEvents(t *testing.T) (path string, events <-chan fakemcp.Event) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "events.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ch := make(chan fakemcp.Event, 16)
	go func() {
		defer close(ch)
		f, err := os.Open(path) // blocks until the child opens it for writing
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var ev fakemcp.Event
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				ch <- ev
			}
		}
	}()
	return path, ch
}

func TestProcessOverPipes(t *testing.T) {
	fifo, events := fifoEvents(t)
	cs, cmd, stderr := startChild(t, fakemcp.EnvEvents+"="+fifo)
	ctx := context.Background()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if got, want := strings.Join(names, ","), "echo,slow,ticker"; got != want {
		t.Errorf("tools: got %s, want %s", got, want)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ticker", Arguments: map[string]any{"symbol": "ACME"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustJSON(t, res.StructuredContent), `{"currency":"USD","price":211.91,"symbol":"ACME"}`; got != want {
		t.Errorf("ticker: got %s, want %s", got, want)
	}
	waitEvent(t, events, fakemcp.EventCall)

	// Upstream cancellation: the client's cancel must reach the process.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 600000}})
		done <- err
	}()
	if ev := waitEvent(t, events, fakemcp.EventCall); ev.Tool != "slow" {
		t.Fatalf("call event: got %+v, want tool slow", ev)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("slow: got %v, want context.Canceled", err)
	}
	ev := waitEvent(t, events, fakemcp.EventCancelled)
	if ev.Tool != "slow" {
		t.Errorf("cancelled event: got %+v, want tool slow", ev)
	}

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	for range events { // drain until the child closes the FIFO
	}
	if got := cmd.ProcessState.ExitCode(); got != fakemcp.ExitOK {
		t.Errorf("exit: got %d, want %d", got, fakemcp.ExitOK)
	}
	if got := stderr.String(); !strings.Contains(got, "slow: cancelled after ") {
		t.Errorf("stderr: got %q, want a line about slow being cancelled", got)
	}
	if got := stderr.String(); strings.Contains(got, "not both pipes") {
		t.Errorf("stderr: got %q; the child's stdio should have been polled", got)
	}
}

func TestProcessCrashAfter(t *testing.T) {
	cs, cmd, stderr := startChild(t, fakemcp.EnvCrashAfter+"=2")
	ctx := context.Background()
	echo := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}
	if _, err := cs.CallTool(ctx, echo); err != nil {
		t.Fatalf("call 1: %v", err)
	}
	if res, err := cs.CallTool(ctx, echo); err == nil {
		t.Errorf("call 2: got %v, want an error from the crashed process", res)
	}
	cs.Close()
	if got := cmd.ProcessState.ExitCode(); got != fakemcp.ExitCrashed {
		t.Errorf("exit: got %d, want %d", got, fakemcp.ExitCrashed)
	}
	if got := stderr.String(); !strings.Contains(got, "crashing on tool call 2") {
		t.Errorf("stderr: got %q, want it to say it crashed on call 2", got)
	}
}
