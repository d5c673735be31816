package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// stdioTransport runs a stdio server's command and connects to it over its
// stdin and stdout, like mcp.CommandTransport, except that the child's
// stdout reaches the SDK through a frameFilter: a reply over the frame
// limit fails its own call instead of the SDK's read loop (and with it
// every call to the server).
type stdioTransport struct {
	cmd       *exec.Cmd
	limit     int
	terminate time.Duration // how long Close waits after closing stdin, and after SIGTERM
	log       *slog.Logger
}

// Connect starts the command.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err // Start closes the pipes
	}
	// Our framing (stdiox: reused buffers, no per-message decoder) over
	// the filter: the filter bounds every frame; the framing's own bound
	// (which would end the connection) only has to stay out of the way.
	r := newFrameFilter(stdout, t.limit, t.log)
	w := &childStdin{WriteCloser: stdin, cmd: t.cmd, terminate: t.terminate}
	if stdiox.SDKFraming() {
		return (&mcp.IOTransport{Reader: r, Writer: w, MaxLineLength: t.limit + sdkFrameMargin}).Connect(ctx)
	}
	return (&stdiox.IOTransport{Reader: r, Writer: w, MaxFrame: t.limit + sdkFrameMargin}).Connect(ctx)
}

// childStdin is the child's stdin; closing it ends the child as
// mcp.CommandTransport does (and as the MCP specification asks): close
// stdin, wait for the child to exit, SIGTERM after terminate, SIGKILL
// after terminate again. It returns once the child is reaped, which also
// closes its stdout and so ends the SDK's reads.
type childStdin struct {
	io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
}

func (c *childStdin) Close() error {
	if err := c.WriteCloser.Close(); err != nil {
		return fmt.Errorf("closing stdin: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	wait := func() (error, bool) {
		t := time.NewTimer(c.terminate)
		defer t.Stop()
		select {
		case err := <-done:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	// If SIGTERM cannot be sent, go straight to SIGKILL.
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := c.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("unresponsive subprocess")
}
