package quickjs

import "encoding/binary"

// The C heap is emscripten's dlmalloc, its chunks laid end to end from
// the heap base (the stack's top, see stackLayout): a chunk's second word
// is its size with two flags, cinuse (the chunk is allocated) and pinuse
// (the one before it is).
const (
	chunkPInUse = 1
	chunkCInUse = 2
	chunkFlags  = 7
	// chunkOverhead is what malloc adds to a request: a request of
	// size-chunkOverhead gets a chunk of exactly size.
	chunkOverhead = 4
	minChunk      = 16
)

// fillBelow: FillFree leaves a free chunk of a page or more. Runs carve
// their allocations out of it in pages of their own, as from the top
// (dlmalloc splits the smallest such chunk and keeps allocating from the
// remainder), so filling it buys nothing and would take its bytes from
// every program. At the pinned build's prelude: the chunks under a page
// are 294 of 306 and 212 KB of 688 KB; a trivial persistent run then
// leaves 23 pages written, against 22 with everything filled and 57 with
// nothing filled (1 KiB: 27 pages, 70 KB).
const fillBelow = osPage

// maxFill bounds FillFree: chunks and bytes.
const (
	maxFillChunks = 1 << 16
	maxFillBytes  = 8 << 20
)

// FillFree allocates, and never frees, the free chunks of the C heap but
// its top, so that what runs allocate later comes from the top: pages no
// snapshot holds. Call it right before Snapshot.
//
// Why? A context built from source leaves a few hundred free chunks
// (its temporaries) scattered over the ~1.4 MB of heap the prelude
// fills. A run in an instance restored from the snapshot would allocate
// from them, and even a `return 1 + 1` wrote into ~50 of the snapshot's
// pages (a chunk's header, a bin's links, the object put there), each
// of which a persistent environment then keeps as its own; with the
// chunks filled, the same run writes ~20. The filled chunks cost no new
// memory: they were already part of the heap, in every instance.
//
// FillFree reads the heap only to learn the chunks' sizes; what it does
// is malloc, so a heap laid out otherwise than it expects costs at most
// some allocations that fill nothing. It returns how many chunks and
// bytes it allocated.
func (i *Instance) FillFree() (chunks int, bytes int64, err error) {
	if i.r.stack.top == 0 {
		return 0, 0, nil
	}
	for range 3 {
		sizes := i.freeChunks()
		if len(sizes) == 0 {
			break
		}
		for _, s := range sizes {
			if s >= fillBelow {
				continue
			}
			if chunks >= maxFillChunks || bytes+int64(s) > maxFillBytes {
				return chunks, bytes, nil
			}
			if _, err := i.Malloc(s - chunkOverhead); err != nil {
				return chunks, bytes, err
			}
			chunks++
			bytes += int64(s)
		}
	}
	return chunks, bytes, nil
}

// freeChunks walks the heap's chunks and returns the sizes of the free
// ones before the last (the top), or nil where the walk finds anything
// but dlmalloc's layout (a flag that contradicts its neighbour).
func (i *Instance) freeChunks() []int {
	buf, ok := i.mem.Read(0, i.mem.Size())
	if !ok {
		return nil
	}
	var sizes []int
	prevInUse := true
	for p := (int(i.r.stack.top) + 7) &^ 7; p+8 <= len(buf); {
		head := int(binary.LittleEndian.Uint32(buf[p+4:]))
		size := head &^ chunkFlags
		if size < minChunk || p+size > len(buf) {
			break
		}
		if (head&chunkPInUse != 0) != prevInUse {
			return nil
		}
		prevInUse = head&chunkCInUse != 0
		if !prevInUse {
			sizes = append(sizes, size)
		}
		p += size
	}
	if len(sizes) > 0 {
		sizes = sizes[:len(sizes)-1]
	}
	return sizes
}
