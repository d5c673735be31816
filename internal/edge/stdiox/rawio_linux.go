//go:build linux

package stdiox

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/codemode/codemode/internal/edge/rawio"
)

// rawFile is a non-blocking descriptor the netpoller watches, read and
// written with raw system calls (docs/benchmarks.md, "The stdio path on
// one P"; RATIONALE.md, "Why does serve over stdio run on one P, with raw
// system calls on its pipes?").
//
// os.File's Read and Write go through syscall.Syscall, whose
// entersyscall wakes the runtime's sysmon thread whenever the process was
// idle. A stdio server is idle between every two requests, so requests
// woke sysmon, which then polled every 20 µs until the process was idle
// again: 0.75 of sysmon's sleeps per `return 1 + 1` answered by `codemode
// serve`, 0.13 with raw calls, and a fifth less CPU per call on one P.
// A read or write of a non-blocking descriptor never blocks, so it needs
// no entersyscall: RawSyscall issues it on the goroutine's thread, and
// EAGAIN still parks the goroutine in the netpoller (RawConn.Read and
// Write), as os.File does. A raw system call is not a safe point, so a
// stop-the-world waits for it to return: on a non-blocking descriptor
// that is microseconds, so CONTRACT §8's stall (a stop-the-world waiting
// for a blocking read of stdin) cannot occur.
//
// A reader may also wait for input by polling: see [Spin].
type rawFile struct {
	*os.File
	rc   syscall.RawConn
	spin time.Duration // set by Spin before the file is used

	// misses counts consecutive spins that timed out; skip, replies to
	// let go by without spinning (spinUntilReadable).
	misses, skip int
}

// rawFileOf wraps f, which must be non-blocking and polled; if f offers
// no RawConn, it is returned as it is.
func rawFileOf(f *os.File) io.ReadWriteCloser {
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	return &rawFile{File: f, rc: rc}
}

func (f *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, errno, err := rawio.Read(f.rc, p)
	switch {
	case err != nil:
		return 0, &os.PathError{Op: "read", Path: f.Name(), Err: pollErr(err)}
	case errno != 0:
		return 0, &os.PathError{Op: "read", Path: f.Name(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (f *rawFile) Write(p []byte) (int, error) {
	done, errno, err := rawio.Write(f.rc, p)
	switch {
	case err != nil:
		return done, &os.PathError{Op: "write", Path: f.Name(), Err: pollErr(err)}
	case errno != 0:
		return done, &os.PathError{Op: "write", Path: f.Name(), Err: errno}
	}
	return done, nil
}

// pollErr maps an error of RawConn's wait as os.File maps the same from
// internal/poll: a deadline stays itself, anything else is the file being
// closed (RawRead and RawWrite fail for no other reason on a polled file).
func pollErr(err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return err
	}
	return os.ErrClosed
}

// CloseUnblocksRead implements ReadCloseUnblocker: closing a polled file
// wakes a read waiting in the netpoller.
func (f *rawFile) CloseUnblocksRead() bool { return true }

func (f *rawFile) setSpin(d time.Duration) { f.spin = d }

// spinUntilReadable polls f with ppoll(2) and a zero timeout, yielding to
// every other runnable goroutine and thread between two polls, until f is
// readable (or at end of file, or in error) or f.spin has passed. It keeps
// the process's thread running while a client reads a reply and writes
// its next request; when the request comes, the goroutine reading f is
// parked in the netpoller, and the scheduler, which polls the netpoller
// before it sleeps, runs it without a wake-up.
//
// Spinning pays only when the request comes within the window, on a
// machine with a core to spare. When the window runs out (a slow client,
// a person) or a yield gives the CPU away for long (a loaded machine,
// where spinning would take the core from the very processes it waits
// for), f stops spinning for the next 1, 2, 4 … 64 replies after each
// consecutive miss, and one hit resets that.
// Only the goroutine that writes the reply to the last call in flight
// calls it, one at a time.
func (f *rawFile) spinUntilReadable() {
	if f.spin <= 0 {
		return
	}
	if f.skip > 0 {
		f.skip--
		return
	}
	if !spareCore() {
		return
	}
	var start, last time.Time
	for {
		ready := true
		if err := f.rc.Control(func(fd uintptr) { ready = pollReadable(fd) }); err != nil || ready {
			f.misses = 0
			return
		}
		now := time.Now()
		switch {
		case start.IsZero():
			start = now
		case now.Sub(start) >= f.spin, now.Sub(last) >= contended:
			// The window ran out, or the yield below gave the CPU to
			// another thread for a while: the machine is busy, and
			// spinning would take the core from whoever we wait for.
			f.skip = 1<<min(f.misses, 6) - 1
			f.misses++
			return
		}
		last = now
		runtime.Gosched()
		// Let the kernel run another thread on this CPU, should one be
		// waiting: a no-op on an idle machine.
		syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
}

// spareCore reports whether the machine had a core to spare lately: its
// one-minute load average below the number of CPUs, read from
// /proc/loadavg at most every 250 ms. The load counts the session itself:
// a client and a server answering each other back to back keep about one
// task runnable, so on an idle 2-core machine the load during a run of
// calls is 1–2, and a bound of CPUs less a half kept the spin off there,
// where it pays most; with other work keeping the CPUs busy (load 2 and
// more on 2 cores) the vCPUs do not halt, the spin buys nothing, and with
// a client slow to turn around (the go-sdk's) it cost ~10 µs a call
// (docs/benchmarks.md, "The stdio path, round 4"). A spin on a machine
// without a core to spare takes the core from the client it waits for,
// and a thread that yields loses the priority the kernel gives a thread
// it wakes: at load averages of 8–15 on 2 cores, spinning made the median
// of a `return 1 + 1` over stdio 20–60 µs slower (docs/benchmarks.md,
// "The stdio path, round 3").
func spareCore() bool {
	if assumeSpareCore {
		return true
	}
	now := time.Now().UnixNano()
	if now-loadCheckedAt.Load() < int64(250*time.Millisecond) {
		return loadSpare.Load()
	}
	loadCheckedAt.Store(now)
	spare := false
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if i := bytes.IndexByte(b, ' '); i > 0 {
			if l, err := strconv.ParseFloat(string(b[:i]), 64); err == nil {
				spare = l < float64(runtime.NumCPU())
			}
		}
	}
	loadSpare.Store(spare)
	return spare
}

var (
	loadCheckedAt atomic.Int64
	loadSpare     atomic.Bool

	assumeSpareCore bool // tests: spin whatever the load
)

// contended is the time between two polls of spinUntilReadable past which
// its yield is taken to have given the CPU away (two polls with nothing to
// yield to are a few microseconds apart).
const contended = 20 * time.Microsecond

// pollReadable reports whether a read of fd would not wait: it has input,
// its writer is gone, or it is in error.
func pollReadable(fd uintptr) bool {
	pfd := unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
	var ts unix.Timespec // zero: do not wait
	n, _, errno := syscall.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if errno != 0 {
		return errno != syscall.EINTR
	}
	return n > 0
}
