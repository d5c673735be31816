package stdiox

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// IOTransport is an MCP transport that speaks newline-delimited JSON-RPC
// over Reader and Writer, like [mcp.IOTransport], with framing of our own
// (RATIONALE.md, "Why our own framing?"): one reused read buffer per
// connection, one reused write buffer, and no allocation by the decoder
// beyond one copy of each frame and the messages themselves.
//
// Differences from the SDK's: Read runs on the caller's goroutine (the
// SDK's hands every message over from a goroutine of its own), so closing
// the connection must unblock a pending read of Reader — true of pipes and
// sockets through the netpoller ([Pipes], os/exec pipes) and of io.Pipe; a
// batch (a JSON array of messages, protocol versions before 2025-06-18) is
// read message by message and its responses are written one frame each,
// not as an array.
type IOTransport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxFrame bounds one incoming frame in bytes; a longer one ends the
	// connection with ErrFrameTooLarge. If zero, DefaultMaxFrame.
	MaxFrame int
}

// Transport returns an MCP transport that speaks newline-delimited JSON-RPC
// over r and w, typically the values returned by [Pipes]. Closing the
// connection closes r and w; with pollable files that also wakes a
// goroutine blocked reading r, so a closed session leaves no reader
// goroutine behind.
//
// With CODEMODE_FRAMING=sdk in the environment it is the SDK's
// mcp.IOTransport instead (see [SDKFraming]).
func Transport(r io.ReadCloser, w io.WriteCloser) mcp.Transport {
	if SDKFraming() {
		return &mcp.IOTransport{Reader: r, Writer: w}
	}
	return &IOTransport{Reader: r, Writer: w}
}

// SDKFraming reports whether CODEMODE_FRAMING=sdk asks for the SDK's own
// framing (mcp.IOTransport) instead of ours: a way back should ours
// misread a peer, and what `codemode bench` compares ours with in one run
// (docs/benchmarks.md, "The MCP transport").
func SDKFraming() bool { return os.Getenv("CODEMODE_FRAMING") == "sdk" }

// Connect implements mcp.Transport.
func (t *IOTransport) Connect(context.Context) (mcp.Connection, error) {
	return &conn{fr: newFrameReader(t.Reader, t.MaxFrame), r: t.Reader, w: t.Writer}, nil
}

type conn struct {
	fr    *frameReader
	queue []jsonrpc.Message // the rest of a batch; Read is never concurrent

	r io.ReadCloser
	w io.WriteCloser

	wmu  sync.Mutex
	wbuf []byte

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

func (c *conn) SessionID() string { return "" }

// Read returns the next message.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	if c.closed.Load() {
		return nil, io.EOF
	}
	frame, err := c.fr.next()
	if err != nil {
		if c.closed.Load() {
			return nil, io.EOF
		}
		return nil, err
	}
	msgs, err := decodeFrame(frame)
	if err != nil {
		return nil, err
	}
	c.queue = msgs[1:]
	return msgs[0], nil
}

// Write writes msg as one frame with one call of the writer.
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed.Load() {
		return mcp.ErrConnectionClosed
	}
	buf, err := appendMessage(c.wbuf[:0], msg)
	if err != nil {
		return err
	}
	buf = append(buf, '\n')
	_, err = c.w.Write(buf)
	if cap(buf) <= keepFrame {
		c.wbuf = buf
	} else {
		c.wbuf = nil
	}
	return err
}

// Close closes the reader and the writer, once.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		rerr := c.r.Close()
		var werr error
		if c.w != nil {
			werr = c.w.Close()
		}
		c.closeErr = errors.Join(rerr, werr)
	})
	return c.closeErr
}
