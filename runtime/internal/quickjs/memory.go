package quickjs

// sliceMemory is the portable fallback for mmapMemory: a Go slice grown by
// copying to the exact size asked. Copies stay rare because the memory only
// grows through emscripten_resize_heap, which over-allocates by 20%.
type sliceMemory struct{ buf []byte }

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	nb := make([]byte, size)
	copy(nb, m.buf)
	m.buf = nb
	return nb
}

func (m *sliceMemory) Free() { m.buf = nil }
