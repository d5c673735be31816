//go:build linux

package front

import (
	"io"
	"net"
	"syscall"

	"github.com/codemode/codemode/internal/edge/rawio"
)

// RawListener wraps ln so that the TCP connections it accepts read and
// write with raw system calls, as stdio does (internal/edge/stdiox,
// rawio_linux.go): net.Conn's Read and Write go through syscall.Syscall,
// whose entersyscall wakes the runtime's sysmon thread whenever the
// process was idle, and an HTTP server answering one call after another
// is idle between them, so sysmon was woken for most calls and then
// polled every 20 µs until the process was idle again (docs/benchmarks.md,
// "Streamable HTTP per-call throughput"). A read or write of a
// non-blocking socket never blocks, so it needs no entersyscall:
// RawSyscall issues it on the goroutine's thread, and EAGAIN still parks
// the goroutine in the netpoller (RawConn.Read and Write), with the
// connection's deadlines. Connections that are not *net.TCPConn, or offer
// no RawConn, are returned as they are.
func RawListener(ln net.Listener) net.Listener { return rawListener{ln} }

type rawListener struct{ net.Listener }

func (l rawListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	return &rawTCPConn{TCPConn: tc, rc: rc}, nil
}

// rawTCPConn is a *net.TCPConn whose Read and Write are raw system calls;
// everything else (deadlines, Close, CloseWrite, ReadFrom) is the
// TCPConn's.
type rawTCPConn struct {
	*net.TCPConn
	rc syscall.RawConn
}

func (c *rawTCPConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, errno, err := rawio.Read(c.rc, p)
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *rawTCPConn) Write(p []byte) (int, error) {
	done, errno, err := rawio.Write(c.rc, p)
	switch {
	case err != nil:
		return done, c.opError("write", err)
	case errno != 0:
		return done, c.opError("write", errno)
	}
	return done, nil
}

// opError is the error net.TCPConn would return: a *net.OpError around
// the cause (RawConn's own errors are OpErrors for "raw-read" and
// "raw-write"; their cause — the connection closed, a deadline — is kept).
func (c *rawTCPConn) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
