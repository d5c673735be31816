//go:build !linux

package quickjs

import "time"

// threadCPU is not read outside Linux.
func threadCPU() (time.Duration, bool) { return 0, false }
