//go:build !linux

package quickjs

import "github.com/tetratelabs/wazero/experimental"

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	return &sliceMemory{}
}
