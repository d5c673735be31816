//go:build !linux

package quickjs

import "github.com/tetratelabs/wazero/experimental"

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	return &sliceMemory{}
}

// memSnapshot is not implemented off Linux: Instance.Snapshot reports
// ErrSnapshotUnsupported and the engine builds every context from source.
type memSnapshot struct{}

func newMemSnapshot([]byte) (*memSnapshot, error) { return nil, ErrSnapshotUnsupported }

func (s *memSnapshot) close() error { return nil }
