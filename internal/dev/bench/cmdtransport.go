package bench

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// commandTransport runs cmd and speaks MCP over its stdin and stdout
// through stdiox's framing, like mcp.CommandTransport with the SDK's: the
// bench's client is the same for `codemode serve` and for a peer, and
// should cost as little as it can so that the servers are what is
// measured.
type commandTransport struct{ cmd *exec.Cmd }

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	return (&stdiox.IOTransport{Reader: stdout, Writer: &childIn{WriteCloser: stdin, cmd: t.cmd}}).Connect(ctx)
}

// childIn closes the child's stdin, then waits for it to exit: SIGTERM
// after 5 s, SIGKILL after 5 more.
type childIn struct {
	io.WriteCloser
	cmd *exec.Cmd
}

func (c *childIn) Close() error {
	err := c.WriteCloser.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case werr := <-done:
			return errors.Join(err, ignoreExit(werr))
		case <-time.After(5 * time.Second):
			c.cmd.Process.Signal(sig)
		}
	}
	return errors.Join(err, ignoreExit(<-done))
}

func ignoreExit(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil
	}
	return err
}
