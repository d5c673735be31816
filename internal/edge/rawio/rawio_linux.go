//go:build linux

package rawio

import (
	"syscall"
	"unsafe"
)

// maxRW bounds one read(2) or write(2), as internal/poll does.
const maxRW = 1 << 30

// Read reads once into p (len(p) > 0) from rc's descriptor, waiting in the
// netpoller while there is nothing to read. It returns the bytes read (0 at
// the end of the stream), or the system call's errno, or err from RawConn
// (the descriptor closed, a deadline).
func Read(rc syscall.RawConn, p []byte) (n int, errno syscall.Errno, err error) {
	if len(p) > maxRW {
		p = p[:maxRW]
	}
	var r uintptr
	err = rc.Read(func(fd uintptr) bool {
		for {
			r, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch errno {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				errno = 0
				return false // wait in the netpoller
			}
			return true
		}
	})
	if errno != 0 {
		r = 0
	}
	return int(r), errno, err
}

// Write writes all of p to rc's descriptor, waiting in the netpoller while
// its buffer is full. It returns the bytes written, and the errno of the
// system call that failed or err from RawConn.
func Write(rc syscall.RawConn, p []byte) (done int, errno syscall.Errno, err error) {
	err = rc.Write(func(fd uintptr) bool {
		for done < len(p) {
			chunk := min(len(p)-done, maxRW)
			n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(chunk))
			switch e {
			case 0:
				done += int(n)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the buffer is full: wait in the netpoller
			default:
				errno = e
				return true
			}
		}
		return true
	})
	return done, errno, err
}
