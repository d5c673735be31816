package quickjs

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time of the calling OS thread (lock the goroutine
// to it first): on a shared machine, the time a benchmark ran rather than
// waited for a core.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
