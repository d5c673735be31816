package stdiox

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// CommandTransport runs Cmd and speaks MCP over its stdin and stdout with
// this package's framing, as mcp.CommandTransport does with the SDK's: a
// client that costs as little as it can (the bench and the hostile suite
// measure the server, not their client), and that writes a request's
// params as they are, where the SDK's writer compacts them again under the
// session's write lock.
type CommandTransport struct {
	Cmd *exec.Cmd
	// Terminate is how long closing the connection waits for the child
	// after closing its stdin, then after SIGTERM, before SIGKILL; if zero,
	// 5 s.
	Terminate time.Duration
}

// Connect starts the command.
func (t *CommandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.Cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.Cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.Cmd.Start(); err != nil {
		return nil, err
	}
	terminate := t.Terminate
	if terminate <= 0 {
		terminate = 5 * time.Second
	}
	return (&IOTransport{Reader: stdout, Writer: &childIn{WriteCloser: stdin, cmd: t.Cmd, terminate: terminate}}).Connect(ctx)
}

// childIn closes the child's stdin, then waits for it to exit: SIGTERM
// after terminate, SIGKILL after terminate again.
type childIn struct {
	io.WriteCloser
	cmd       *exec.Cmd
	terminate time.Duration
}

func (c *childIn) Close() error {
	err := c.WriteCloser.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case werr := <-done:
			return errors.Join(err, ignoreExit(werr))
		case <-time.After(c.terminate):
			_ = c.cmd.Process.Signal(sig)
		}
	}
	return errors.Join(err, ignoreExit(<-done))
}

// ignoreExit drops the child's exit status: a server killed on close is
// not an error of the connection.
func ignoreExit(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil
	}
	return err
}
