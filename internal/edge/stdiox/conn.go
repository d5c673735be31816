package stdiox

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// IOTransport is an MCP transport that speaks newline-delimited JSON-RPC
// over Reader and Writer, like [mcp.IOTransport], with framing of our own
// (RATIONALE.md, "Why our own framing?"): one reused read buffer per
// connection, one reused write buffer, and no allocation by the decoder
// beyond one copy of each frame and the messages themselves.
//
// Differences from the SDK's: when closing Reader wakes a pending read of
// it — pipes and sockets through the netpoller ([Pipes], os/exec pipes),
// io.Pipe, or a reader that says so ([ReadCloseUnblocker]) — Read runs on
// the caller's goroutine, where the SDK's hands every message over from a
// goroutine of its own (we keep one, for the same reason, for any other
// reader: a terminal's stdin would otherwise hold Close); a
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

// ReadCloseUnblocker is implemented by a reader whose Close wakes a Read
// blocked in it (or that otherwise ends such a read soon after the
// connection closes), so that the connection can read on its caller's
// goroutine.
type ReadCloseUnblocker interface {
	CloseUnblocksRead() bool
}

// Connect implements mcp.Transport.
func (t *IOTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &conn{fr: newFrameReader(t.Reader, t.MaxFrame), r: t.Reader, w: t.Writer, done: make(chan struct{})}
	if !closeUnblocksRead(t.Reader) {
		c.incoming = make(chan readResult)
		go c.readLoop()
	}
	if s, ok := t.Reader.(readSpinner); ok {
		c.spin = s
	}
	return c, nil
}

// closeUnblocksRead reports whether closing r wakes a read blocked in it.
func closeUnblocksRead(r io.Reader) bool {
	switch r := r.(type) {
	case ReadCloseUnblocker:
		return r.CloseUnblocksRead()
	case *io.PipeReader:
		return true
	case *os.File:
		// Only files the netpoller watches support deadlines.
		return r.SetReadDeadline(time.Time{}) == nil
	}
	return false
}

type readResult struct {
	msgs []jsonrpc.Message
	err  error
}

type conn struct {
	fr    *frameReader
	queue []jsonrpc.Message // the rest of a batch; Read is never concurrent
	// incoming, if not nil, carries what readLoop read: the reader
	// cannot be woken by Close, so reads happen on a goroutine of their
	// own that Read (and Close) need not wait for.
	incoming chan readResult
	done     chan struct{} // closed by Close

	r io.ReadCloser
	w io.WriteCloser

	wmu  sync.Mutex
	wbuf []byte

	// spin, if not nil, polls the reader after the reply to the last
	// request in flight (see [Spin]); inflight counts the calls read
	// and not yet answered.
	spin     readSpinner
	inflight atomic.Int64
	spinning atomic.Bool // one spin at a time

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
		c.count(m)
		return m, nil
	}
	if c.closed.Load() {
		return nil, io.EOF
	}
	var msgs []jsonrpc.Message
	var err error
	if c.incoming == nil {
		msgs, err = c.readFrame()
	} else {
		select {
		case r := <-c.incoming:
			msgs, err = r.msgs, r.err
		case <-c.done:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		if c.closed.Load() {
			return nil, io.EOF
		}
		return nil, err
	}
	c.queue = msgs[1:]
	c.count(msgs[0])
	return msgs[0], nil
}

// count counts a call read, when the connection spins after replies.
func (c *conn) count(m jsonrpc.Message) {
	if c.spin == nil {
		return
	}
	if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
		c.inflight.Add(1)
	}
}

func (c *conn) readFrame() ([]jsonrpc.Message, error) {
	frame, err := c.fr.next()
	if err != nil {
		return nil, err
	}
	if c.fr.detach() {
		return decodeOwnedFrame(frame)
	}
	return decodeFrame(frame)
}

// readLoop reads for Read when the reader cannot be woken by Close; it
// ends at the first error, or when a result finds the connection closed.
func (c *conn) readLoop() {
	for {
		msgs, err := c.readFrame()
		select {
		case c.incoming <- readResult{msgs, err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// Write writes msg as one frame with one call of the writer. When msg
// answers the last call in flight and the connection spins, Write then
// polls the reader for the client's next request (see [Spin]).
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.write(ctx, msg)
	if c.spin != nil {
		if _, ok := msg.(*jsonrpc.Response); ok && c.inflight.Add(-1) <= 0 && err == nil && !c.closed.Load() && c.spinning.CompareAndSwap(false, true) {
			c.spin.spinUntilReadable()
			c.spinning.Store(false)
		}
	}
	return err
}

func (c *conn) write(ctx context.Context, msg jsonrpc.Message) error {
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
		close(c.done)
		rerr := c.r.Close()
		var werr error
		if c.w != nil {
			werr = c.w.Close()
		}
		c.closeErr = errors.Join(rerr, werr)
	})
	return c.closeErr
}
