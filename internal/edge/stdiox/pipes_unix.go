//go:build unix

package stdiox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Pipes returns readers and writers for stdin and stdout whose I/O goes
// through the netpoller whenever the descriptors allow it.
//
// For each of stdin and stdout that is a pipe or a socket, Pipes duplicates
// the descriptor, puts it in non-blocking mode and wraps the duplicate with
// [os.NewFile], which registers it with the netpoller. Anything else (a
// terminal, a regular file, /dev/null) is returned unchanged: O_NONBLOCK is a
// property of the open file description, so setting it on a terminal would
// also change it under the shell that shares it, and regular files cannot be
// polled at all. polled reports whether both directions go through the
// netpoller; when it is false the caller should say so on stderr, because the
// stall described in the package doc is then still possible.
//
// The caller owns r and w and closes them (an [mcp.IOTransport] does so when
// its connection closes). Closing a duplicate leaves the original descriptor
// open, so fd 0 and fd 1 are never freed for reuse by an unrelated open(2);
// the price is that the peer sees end-of-file on our stdout only when the
// process exits. A write to a duplicate whose reader has gone away returns
// EPIPE instead of killing the process with SIGPIPE, as a write to fd 1
// would.
//
// On Darwin and iOS FIFOs are left alone, because kqueue does not report the
// last writer closing a FIFO (Go issue 24164); sockets are still polled.
func Pipes(stdin, stdout *os.File) (r io.ReadCloser, w io.WriteCloser, polled bool, err error) {
	rf, rpolled, err := pollable(stdin)
	if err != nil {
		return nil, nil, false, fmt.Errorf("preparing stdin: %w", err)
	}
	wf, wpolled, err := pollable(stdout)
	if err != nil {
		if rpolled {
			rf.Close()
		}
		return nil, nil, false, fmt.Errorf("preparing stdout: %w", err)
	}
	var rrc io.ReadCloser = rf
	var wwc io.WriteCloser = wf
	if rpolled {
		rrc = rawFileOf(rf)
	}
	if wpolled {
		wwc = rawFileOf(wf)
	}
	return rrc, wwc, rpolled && wpolled, nil
}

// pollable returns a pollable duplicate of f, or f itself and false when f
// is not a pipe or socket.
func pollable(f *os.File) (*os.File, bool, error) {
	if f == nil {
		return nil, false, errors.New("nil file")
	}
	// SyscallConn rather than Fd: Fd would switch a file that is already
	// pollable (one from os.Pipe, say) back to blocking mode under its owner.
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, false, err
	}
	var (
		dup    *os.File
		setNB  bool // we turned O_NONBLOCK on, so we must undo it on failure
		origFD uintptr
		opErr  error
	)
	ctlErr := sc.Control(func(fd uintptr) {
		origFD = fd
		var st syscall.Stat_t
		if opErr = syscall.Fstat(int(fd), &st); opErr != nil {
			opErr = fmt.Errorf("fstat: %w", opErr)
			return
		}
		if !canPoll(uint32(st.Mode) & syscall.S_IFMT) {
			return
		}
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil {
			opErr = fmt.Errorf("reading file status flags: %w", err)
			return
		}
		nb := fl&unix.O_NONBLOCK != 0
		// F_DUPFD_CLOEXEC so the duplicate never leaks into a child we
		// spawn; the child gets its own stdio from os/exec.
		nfd, err := unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			opErr = fmt.Errorf("dup: %w", err)
			return
		}
		if !nb {
			if err := syscall.SetNonblock(nfd, true); err != nil {
				syscall.Close(nfd)
				opErr = fmt.Errorf("setting O_NONBLOCK: %w", err)
				return
			}
			setNB = true
		}
		// NewFile registers a descriptor that is already non-blocking with
		// the netpoller.
		dup = os.NewFile(uintptr(nfd), f.Name())
	})
	if ctlErr != nil {
		return nil, false, ctlErr
	}
	if opErr != nil {
		return nil, false, opErr
	}
	if dup == nil {
		return f, false, nil
	}
	// NewFile falls back to blocking I/O silently when the poller refuses
	// the descriptor. A non-blocking descriptor that is not polled would turn
	// every empty read into an EAGAIN error, so verify, and undo on failure.
	// Only pollable files support deadlines.
	if err := dup.SetDeadline(time.Time{}); err != nil {
		dup.Close()
		if setNB {
			if err := syscall.SetNonblock(int(origFD), false); err != nil {
				return nil, false, fmt.Errorf("restoring blocking mode: %w", err)
			}
		}
		return f, false, nil
	}
	return dup, true, nil
}

func canPoll(typ uint32) bool {
	switch typ {
	case syscall.S_IFSOCK:
		return true
	case syscall.S_IFIFO:
		return runtime.GOOS != "darwin" && runtime.GOOS != "ios"
	}
	return false
}
