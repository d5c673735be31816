//go:build linux

package front

import (
	"io"
	"net"
	"syscall"
	"unsafe"
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

// maxRW bounds one read(2) or write(2), as internal/poll does.
const maxRW = 1 << 30

func (c *rawTCPConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	var n uintptr
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch errno {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait in the netpoller
			}
			return true
		}
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", errno)
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

func (c *rawTCPConn) Write(p []byte) (int, error) {
	var done int
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for done < len(p) {
			chunk := min(len(p)-done, maxRW)
			n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(chunk))
			switch e {
			case 0:
				done += int(n)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the socket's buffer is full: wait in the netpoller
			default:
				errno = e
				return true
			}
		}
		return true
	})
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
