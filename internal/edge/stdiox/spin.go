package stdiox

import (
	"io"
	"os"
	"time"
)

// DefaultSpin is how long a stdio server's connection keeps its thread
// polling stdin after its last reply, unless CODEMODE_STDIO_SPIN says
// otherwise (see [SpinFromEnv]).
const DefaultSpin = 50 * time.Microsecond

// maxSpin bounds CODEMODE_STDIO_SPIN.
const maxSpin = 10 * time.Millisecond

// SpinFromEnv returns the window for [Spin]: CODEMODE_STDIO_SPIN as a Go
// duration ("0" turns spinning off; at most 10ms), else [DefaultSpin].
func SpinFromEnv() time.Duration {
	v, ok := os.LookupEnv("CODEMODE_STDIO_SPIN")
	if !ok {
		return DefaultSpin
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return DefaultSpin
	}
	return min(d, maxSpin)
}

// readSpinner is a reader that can poll for input before its reader
// parks (rawFile, on Linux).
type readSpinner interface {
	setSpin(time.Duration)
	spinUntilReadable()
}

// Spin makes a connection over r (a reader returned by [Pipes]; any other
// reader is left alone) poll r for up to d after it has answered every
// request it read, before the process goes idle: a ppoll(2) with a zero
// timeout, then a yield to every other runnable goroutine, in a loop that
// ends as soon as r is readable. Call it before the connection is made.
//
// A client of a stdio server usually sends its next request within tens
// of microseconds of reading a reply. A server that goes idle at once
// parks its thread, and on a virtual machine an idle vCPU halts: waking
// it for the next request costs tens of microseconds more, on every round
// trip (docs/benchmarks.md, "The stdio path, round 3"; RATIONALE.md, "Why
// does a stdio session poll stdin after a reply?"). The polling costs CPU
// only after a reply: a session left idle polls once, for d, then sleeps.
func Spin(r io.Reader, d time.Duration) {
	if s, ok := r.(readSpinner); ok {
		s.setSpin(d)
	}
}
