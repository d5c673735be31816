//go:build linux

package quickjs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

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
type mmapMemory struct {
	buf  []byte
	snap *memSnapshot // mapped over the start of buf by restore, if any
	pm   []byte       // restore's page map buffer (without PAGEMAP_SCAN)
	// regions is PAGEMAP_SCAN's output buffer, made by the first restore
	// that copies back (a persistent environment never needs it). A
	// small program leaves ~40 ranges of written pages.
	regions *[64]pageRegion
}

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

// memSnapshot is a copy of a linear memory in a memfd, which restores map
// copy-on-write over an instance's memory, and a read-only view of it that
// later restores copy pages back from.
type memSnapshot struct {
	fd   int
	data []byte // the memfd, mapped shared and read-only
}

// newMemSnapshot copies buf into a new memfd. Zero pages are not written:
// the file stays sparse and costs only the pages the snapshot uses.
func newMemSnapshot(buf []byte) (*memSnapshot, error) {
	fd, err := unix.MemfdCreate("codemode-quickjs-snapshot", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*memSnapshot, error) {
		unix.Close(fd)
		return nil, err
	}
	if err := unix.Ftruncate(fd, int64(len(buf))); err != nil {
		return fail(err)
	}
	var zero [osPage]byte
	for off := 0; off < len(buf); {
		if bytes.Equal(buf[off:off+osPage], zero[:]) {
			off += osPage
			continue
		}
		end := off + osPage
		for end < len(buf) && !bytes.Equal(buf[end:end+osPage], zero[:]) {
			end += osPage
		}
		for w := off; w < end; {
			n, err := unix.Pwrite(fd, buf[w:end], int64(w))
			if err != nil {
				return fail(err)
			}
			w += n
		}
		off = end
	}
	data, err := unix.Mmap(fd, 0, len(buf), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return fail(err)
	}
	return &memSnapshot{fd: fd, data: data}, nil
}

func (s *memSnapshot) close() error {
	return errors.Join(unix.Munmap(s.data), unix.Close(s.fd))
}

const osPage = 4096

// Bits of a /proc/self/pagemap entry (Documentation/admin-guide/mm/pagemap.rst).
const (
	pmPresent = 1 << 63
	pmSwapped = 1 << 62
	pmFile    = 1 << 61 // a file page (here: still the snapshot's) or shared anonymous
)

var pagemap = sync.OnceValues(func() (int, error) {
	return unix.Open("/proc/self/pagemap", unix.O_RDONLY|unix.O_CLOEXEC, 0)
})

// restore resets the first cur bytes of the memory to the snapshot (size
// bytes, then zeros).
//
// The first restore maps the snapshot copy-on-write over the memory (one
// mmap; the next run faults in the pages it touches). Later restores of
// the same snapshot copy back only the pages written since, which
// /proc/self/pagemap tells apart: a written page of the private mapping is
// anonymous, an unwritten one is still the memfd's. Remapping every time
// would be simpler, but each run would then fault every page it touches
// again, which costs programs that allocate much more than it saves
// (records_10k: +6 ms a run).
//
// The written pages are found with the PAGEMAP_SCAN ioctl (Linux 6.7)
// where the kernel has it: the kernel walks the page tables and reports
// only the ranges of anonymous pages. Reading a page map entry for every
// page (16 MiB of memory: 4,096 entries, 32 KiB) is the fallback.
func (m *mmapMemory) restore(s *memSnapshot, size, cur uint32) error {
	if m.buf == nil || int(cur) > len(m.buf) || size > cur || size%osPage != 0 || int(size) != len(s.data) {
		return errors.New("quickjs: cannot restore a snapshot into this memory")
	}
	if m.snap == s {
		if pm, err := pagemap(); err == nil && m.copyBack(pm, s, size, cur) == nil {
			return nil
		}
	}
	if _, err := unix.MmapPtr(s.fd, 0, unsafe.Pointer(&m.buf[0]), uintptr(size),
		unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_FIXED|unix.MAP_NORESERVE); err != nil {
		m.snap = nil
		return err
	}
	m.snap = s
	if cur > size {
		return unix.Madvise(m.buf[size:cur], unix.MADV_DONTNEED)
	}
	return nil
}

// copyBack restores the pages written since the snapshot was mapped:
// copied from the snapshot below size, zeroed from size to cur.
func (m *mmapMemory) copyBack(pm int, s *memSnapshot, size, cur uint32) error {
	if useScan.Load() {
		err := m.copyBackScan(pm, s, size, cur)
		if !errors.Is(err, errNoScan) {
			return err
		}
		useScan.Store(false) // an older kernel: read the page map
	}
	return m.copyBackRead(pm, s, size, cur)
}

// copyBackScan is copyBack over the ranges PAGEMAP_SCAN reports.
func (m *mmapMemory) copyBackScan(pm int, s *memSnapshot, size, cur uint32) error {
	return m.scanWritten(pm, int(cur), func(off, end int) {
		if below := min(end, int(size)); off < below {
			copy(m.buf[off:below], s.data[off:below])
			off = below
		}
		if off < end {
			clear(m.buf[off:end])
		}
	})
}

// copyBackRead is copyBack over the page map, read entry by entry.
func (m *mmapMemory) copyBackRead(pm int, s *memSnapshot, size, cur uint32) error {
	pages := int(cur) / osPage
	if cap(m.pm) < pages*8 {
		m.pm = make([]byte, pages*8)
	}
	ents := m.pm[:pages*8]
	base := int64(uintptr(unsafe.Pointer(&m.buf[0]))) / osPage * 8
	for got := 0; got < len(ents); {
		n, err := unix.Pread(pm, ents[got:], base+int64(got))
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("short read of the page map")
		}
		got += n
	}
	below := int(size) / osPage
	for k := 0; k < pages; k++ {
		e := binary.LittleEndian.Uint64(ents[8*k:])
		if e&(pmPresent|pmSwapped) == 0 {
			continue
		}
		off := k * osPage
		switch {
		case k < below && e&pmFile == 0:
			copy(m.buf[off:off+osPage], s.data[off:off+osPage])
		case k >= below:
			clear(m.buf[off : off+osPage])
		}
	}
	return nil
}

// PAGEMAP_SCAN (linux/fs.h): the ioctl, the page categories used here,
// and the layouts of struct pm_scan_arg and struct page_region.
const (
	pagemapScan = 0xC0606610 // _IOWR('f', 16, struct pm_scan_arg)

	pageIsFile    = 1 << 2
	pageIsPresent = 1 << 3
	pageIsSwapped = 1 << 4
	pageIsPFNZero = 1 << 5
)

type pmScanArg struct {
	size, flags, start, end, walkEnd, vec, vecLen, maxPages       uint64
	categoryInverted, categoryMask, categoryAnyofMask, returnMask uint64
}

type pageRegion struct{ start, end, categories uint64 }

// useScan is cleared the first time the kernel refuses PAGEMAP_SCAN.
var useScan = func() *atomic.Bool { b := new(atomic.Bool); b.Store(true); return b }()

// errNoScan: the kernel has no PAGEMAP_SCAN (it came in Linux 6.7).
var errNoScan = errors.New("quickjs: PAGEMAP_SCAN unsupported")

// scanWritten calls fn with the byte ranges [off, end) of the first n
// bytes of the memory that hold pages written since they were mapped:
// present or swapped, and neither the mapped file's (the snapshot's) nor
// the shared zero page (which reads as zeros, as the snapshot's bytes
// do wherever a read could map it).
func (m *mmapMemory) scanWritten(pm, n int, fn func(off, end int)) error {
	if m.regions == nil {
		m.regions = new([64]pageRegion)
	}
	base := uint64(uintptr(unsafe.Pointer(&m.buf[0])))
	arg := pmScanArg{
		size:              uint64(unsafe.Sizeof(pmScanArg{})),
		start:             base,
		end:               base + uint64(n),
		vec:               uint64(uintptr(unsafe.Pointer(&m.regions[0]))),
		vecLen:            uint64(len(m.regions)),
		categoryInverted:  pageIsFile | pageIsPFNZero,
		categoryMask:      pageIsFile | pageIsPFNZero,
		categoryAnyofMask: pageIsPresent | pageIsSwapped,
		returnMask:        pageIsPresent,
	}
	for arg.start < arg.end {
		got, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(pm), pagemapScan, uintptr(unsafe.Pointer(&arg)))
		switch {
		case errno == unix.ENOTTY || errno == unix.EINVAL:
			return errNoScan
		case errno == unix.EINTR:
			continue
		case errno != 0:
			return errno
		}
		for _, r := range m.regions[:got] {
			fn(int(r.start-base), int(r.end-base))
		}
		if arg.walkEnd <= arg.start {
			return errors.New("quickjs: PAGEMAP_SCAN made no progress")
		}
		arg.start = arg.walkEnd
	}
	return nil
}

// compact drops the written pages of the first cur bytes that hold what a
// read would find without them: below the mapped snapshot, the snapshot's
// bytes (the page is shared again); above it, zeros. Bytes in [deadLo,
// deadHi), the stack below its pointer between calls (Instance.deadStack),
// are not compared: nothing reads them before writing, so a page is
// dropped when the rest of it matches. It returns how many bytes it
// dropped. Outside the dead range the memory reads the same before and
// after.
func (m *mmapMemory) compact(cur, deadLo, deadHi uint32) int64 {
	if m.buf == nil || int(cur) > len(m.buf) {
		return 0
	}
	pm, err := pagemap()
	if err != nil {
		return 0
	}
	pages := int(cur) / osPage
	// Not m.pm: an idle instance should not keep 8 bytes per page.
	ents := make([]byte, pages*8)
	base := int64(uintptr(unsafe.Pointer(&m.buf[0]))) / osPage * 8
	for got := 0; got < len(ents); {
		n, err := unix.Pread(pm, ents[got:], base+int64(got))
		if err != nil || n == 0 {
			return 0
		}
		got += n
	}
	below := 0
	if m.snap != nil {
		below = len(m.snap.data) / osPage
	}
	var zero [osPage]byte
	// equal reports whether the memory's bytes [a, b) read as they would
	// without the page.
	equal := func(k, a, b int) bool {
		if a >= b {
			return true
		}
		if k < below {
			return bytes.Equal(m.buf[a:b], m.snap.data[a:b])
		}
		return bytes.Equal(m.buf[a:b], zero[:b-a])
	}
	dlo, dhi := int(deadLo), int(deadHi)
	if dhi > int(cur) || dlo >= dhi {
		dlo, dhi = 0, 0
	}
	var dropped int64
	start := -1
	flush := func(end int) {
		if start >= 0 && unix.Madvise(m.buf[start*osPage:end*osPage], unix.MADV_DONTNEED) == nil {
			dropped += int64(end-start) * osPage
		}
		start = -1
	}
	for k := 0; k < pages; k++ {
		e := binary.LittleEndian.Uint64(ents[8*k:])
		same := false
		if e&pmPresent != 0 && e&pmFile == 0 {
			a, b := k*osPage, (k+1)*osPage
			if ds, de := max(a, dlo), min(b, dhi); ds < de {
				// The page holds dead stack: compare what lies around it.
				same = equal(k, a, ds) && equal(k, de, b)
			} else {
				same = equal(k, a, b)
			}
		}
		switch {
		case same && start < 0:
			start = k
		case !same:
			flush(k)
		}
	}
	flush(pages)
	return dropped
}
