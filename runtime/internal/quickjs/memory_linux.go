//go:build linux

package quickjs

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapMemory backs a wasm linear memory with one anonymous mapping of the
// maximum size, reserved but not committed (MAP_NORESERVE): pages cost RSS
// only once touched, growing never copies, and the whole memory goes back
// to the OS at once when the instance closes.
//
// Why not wazero's default (a Go slice grown by append)? Growing to 256 MiB
// by appending keeps the old and the new buffer alive until a GC, so a
// memory bomb would take about twice the cap from the process, and the Go
// heap would keep the pages after the instance is gone.
//
// Safety: the mapping is unmapped by Free, which wazero calls when the
// module closes. Nothing may read the memory after that; Instance only
// closes the module from the goroutine that drives it.
type mmapMemory struct{ buf []byte }

func newLinearMemory(capacity, max uint64) experimental.LinearMemory {
	if max == 0 || max > 1<<32 {
		return &sliceMemory{}
	}
	b, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		// E.g. strict overcommit accounting: fall back to the Go heap.
		return &sliceMemory{}
	}
	return &mmapMemory{buf: b}
}

func (m *mmapMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

func (m *mmapMemory) Free() {
	if m.buf != nil {
		_ = syscall.Munmap(m.buf)
		m.buf = nil
	}
}
