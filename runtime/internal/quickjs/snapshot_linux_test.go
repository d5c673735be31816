package quickjs

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestSnapshotRestore: a restored instance is the snapshotted one, whatever
// ran since, in the same instance and in a new one; memory grown past the
// snapshot reads as zero. Both ways of finding the written pages are
// tested: PAGEMAP_SCAN, and the page map read entry by entry.
func TestSnapshotRestore(t *testing.T) {
	for _, tc := range []struct {
		name string
		scan bool
	}{
		{"PAGEMAP_SCAN", true},
		{"page map read", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer useScan.Store(useScan.Load())
			useScan.Store(tc.scan)
			testSnapshotRestore(t)
			if tc.scan && !useScan.Load() {
				t.Skip("the kernel has no PAGEMAP_SCAN: the page map was read")
			}
		})
	}
}

func testSnapshotRestore(t *testing.T) {
	r, inst, c := newTestContext(t)
	evalString(t, inst, c, `globalThis.before = "kept"; ""`)
	snap, err := inst.Snapshot()
	if errors.Is(err, ErrSnapshotUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	size := inst.MemorySize()

	// Dirty the instance (a global, memory past the snapshot) and restore,
	// twice: the first restore maps the snapshot, later ones copy back the
	// pages written.
	for round := 0; round < 3; round++ {
		evalString(t, inst, c, `globalThis.after = "leaked"; globalThis.big = "x".repeat(40 << 20); ""`)
		if inst.MemorySize() <= size {
			t.Fatalf("memory did not grow (%d bytes)", inst.MemorySize())
		}
		grown := inst.MemorySize()
		if err := inst.Restore(snap); err != nil {
			t.Fatal(err)
		}
		if got := evalString(t, inst, c, `typeof after + " " + typeof big + " " + before`); got != "undefined undefined kept" {
			t.Errorf("round %d: after restore: %q", round, got)
		}
		if err := inst.Restore(snap); err != nil {
			t.Fatal(err)
		}
		mem, _ := inst.mem.Read(0, uint32(grown))
		if !bytes.Equal(mem[:size], snap.mem.data) {
			t.Fatalf("round %d: the memory differs from the snapshot after restore", round)
		}
		for k, b := range mem[size:] {
			if b != 0 {
				t.Fatalf("round %d: byte %d past the snapshot is %#x after restore, want 0", round, size+int64(k), b)
			}
		}
	}

	other, err := r.NewInstanceFrom(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if got := evalString(t, other, c, `typeof after + " " + before`); got != "undefined kept" {
		t.Errorf("new instance from the snapshot: %q", got)
	}
}

// TestScanWritten: PAGEMAP_SCAN reports exactly the pages the page map
// shows as written (present or swapped, not the snapshot's file pages, not
// the shared zero page), below the snapshot and past it.
func TestScanWritten(t *testing.T) {
	_, inst, c := newTestContext(t)
	snap, err := inst.Snapshot()
	if errors.Is(err, ErrSnapshotUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	m := inst.lm.(*mmapMemory)
	pm, err := pagemap()
	if err != nil {
		t.Skip(err)
	}
	for round, src := range []string{
		`globalThis.a = [1, 2, 3]; ""`,
		`globalThis.big = "x".repeat(24 << 20); ""`,
		`globalThis.u = new Uint8Array(8 << 20); u[4096 * 3] = 1; u.length`,
	} {
		if err := inst.Restore(snap); err != nil {
			t.Fatal(err)
		}
		evalString(t, inst, c, src)
		cur := int(inst.MemorySize())
		var scanned []int
		err := m.scanWritten(pm, cur, func(off, end int) {
			for p := off; p < end; p += osPage {
				scanned = append(scanned, p/osPage)
			}
		})
		if errors.Is(err, errNoScan) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		ents := make([]byte, cur/osPage*8)
		base := int64(uintptr(unsafe.Pointer(&m.buf[0]))) / osPage * 8
		if _, err := unix.Pread(pm, ents, base); err != nil {
			t.Fatal(err)
		}
		var read []int
		for k := range cur / osPage {
			e := binary.LittleEndian.Uint64(ents[8*k:])
			if e&(pmPresent|pmSwapped) != 0 && e&pmFile == 0 {
				read = append(read, k)
			}
		}
		if len(scanned) == 0 {
			t.Fatalf("round %d: PAGEMAP_SCAN found no written page", round)
		}
		// The page map cannot tell the shared zero page from a written
		// one; a page PAGEMAP_SCAN leaves out must read as zeros, as the
		// snapshot does there.
		var zero [osPage]byte
		for _, k := range read {
			if _, ok := slices.BinarySearch(scanned, k); ok {
				continue
			}
			off := k * osPage
			if !bytes.Equal(m.buf[off:off+osPage], zero[:]) || off < len(snap.mem.data) && !bytes.Equal(snap.mem.data[off:off+osPage], zero[:]) {
				t.Errorf("round %d: page %d is written but PAGEMAP_SCAN left it out", round, k)
			}
		}
		for _, k := range scanned {
			if _, ok := slices.BinarySearch(read, k); !ok {
				t.Errorf("round %d: PAGEMAP_SCAN reported page %d, which the page map does not show as written", round, k)
			}
		}
	}
}

// BenchmarkRestore measures a restore after a small program: the cost of a
// fresh environment once the snapshot is mapped, with PAGEMAP_SCAN and
// with the page map read entry by entry.
func BenchmarkRestore(b *testing.B) {
	for _, method := range []struct {
		name string
		scan bool
	}{{"scan", true}, {"read", false}} {
		b.Run(method.name, func(b *testing.B) {
			defer useScan.Store(useScan.Load())
			useScan.Store(method.scan)
			_, inst, c := newTestContext(b)
			snap, err := inst.Snapshot()
			if err != nil {
				b.Skip(err)
			}
			defer snap.Close()
			run := func() {
				v, err := inst.Eval(c, `let a = []; for (let i = 0; i < 100; i++) a.push({i}); JSON.stringify(a).length`, "b.js", EvalGlobal)
				if err != nil {
					b.Fatal(err)
				}
				inst.FreeValue(c, v)
			}
			run()
			if err := inst.Restore(snap); err != nil { // maps the snapshot
				b.Fatal(err)
			}
			for b.Loop() {
				b.StopTimer()
				run()
				b.StartTimer()
				if err := inst.Restore(snap); err != nil {
					b.Fatal(err)
				}
			}
			if method.scan && !useScan.Load() {
				b.Skip("the kernel has no PAGEMAP_SCAN")
			}
		})
	}
}

// TestCompact: compacting an instance restored from a snapshot gives back
// pages and leaves every byte of its memory as it was; the instance keeps
// working, with its state.
func TestCompact(t *testing.T) {
	r, inst, c := newTestContext(t)
	snap, err := inst.Snapshot()
	if errors.Is(err, ErrSnapshotUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	inst2, err := r.NewInstanceFrom(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	defer inst2.Close()
	evalString(t, inst2, c, `globalThis.kept = {a: "x".repeat(1000), n: [1, 2, 3]}; globalThis.big = "y".repeat(4 << 20); ""`)
	evalString(t, inst2, c, `delete globalThis.big; ""`)
	for round := 0; round < 2; round++ {
		mem, _ := inst2.mem.Read(0, inst2.mem.Size())
		before := bytes.Clone(mem)
		released := inst2.Compact()
		if round == 0 && released == 0 {
			t.Error("Compact released nothing")
		}
		mem, _ = inst2.mem.Read(0, inst2.mem.Size())
		if !bytes.Equal(before, mem) {
			t.Fatalf("round %d: the memory changed", round)
		}
		if got := evalString(t, inst2, c, `kept.a.length + " " + kept.n.join()`); got != "1000 1,2,3" {
			t.Fatalf("round %d: after Compact: %q", round, got)
		}
	}
}

// privatePages returns the indexes of the instance's memory pages that
// are its own (written since the snapshot was mapped, or never mapped).
func privatePages(t *testing.T, inst *Instance) []int {
	t.Helper()
	pm, err := pagemap()
	if err != nil {
		t.Skip(err)
	}
	m := inst.lm.(*mmapMemory)
	pages := int(inst.mem.Size()) / osPage
	ents := make([]byte, pages*8)
	if _, err := unix.Pread(pm, ents, int64(uintptr(unsafe.Pointer(&m.buf[0])))/osPage*8); err != nil {
		t.Fatal(err)
	}
	var own []int
	for k := range pages {
		if e := binary.LittleEndian.Uint64(ents[8*k:]); e&pmPresent != 0 && e&pmFile == 0 {
			own = append(own, k)
		}
	}
	return own
}

// TestFillFree: filling the free chunks before a snapshot leaves the heap
// without free chunks but its top, and a run in an instance restored from
// that snapshot writes fewer of the snapshot's pages than the same run
// from a snapshot of the same heap unfilled.
func TestFillFree(t *testing.T) {
	r := newTestRuntime(t)
	garbage := `for (let i = 0; i < 3000; i++) globalThis["k" + i] = {a: "x".repeat(i % 40), b: [i]};
		for (let i = 0; i < 3000; i += 2) delete globalThis["k" + i]; ""`
	run := `globalThis.kept = [1, 2, 3].map(x => ({x, s: "v" + x})); JSON.stringify(kept.length + Object.keys(globalThis).length)`
	written := map[bool]int{}
	for _, fill := range []bool{false, true} {
		inst, err := r.NewInstance(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer inst.Close()
		c, err := inst.NewContext()
		if err != nil {
			t.Fatal(err)
		}
		evalString(t, inst, c, garbage)
		if fill {
			before := len(inst.freeChunks())
			n, bytes, err := inst.FillFree()
			if err != nil {
				t.Fatal(err)
			}
			after := len(inst.freeChunks())
			t.Logf("%d free chunks; filled %d (%d bytes); %d left", before, n, bytes, after)
			if before < 50 || n < before || after > 1 {
				t.Fatalf("%d free chunks before, %d filled, %d after", before, n, after)
			}
		}
		snap, err := inst.Snapshot()
		if errors.Is(err, ErrSnapshotUnsupported) {
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		inst2, err := r.NewInstanceFrom(context.Background(), snap)
		if err != nil {
			t.Fatal(err)
		}
		defer inst2.Close()
		if got := evalString(t, inst2, c, run); got != "1505" {
			t.Fatalf("fill %v: got %s", fill, got)
		}
		inst2.Compact()
		written[fill] = len(privatePages(t, inst2))
	}
	t.Logf("pages a run leaves written: %d unfilled, %d filled", written[false], written[true])
	if written[true] >= written[false] {
		t.Errorf("filled: %d pages written, unfilled %d", written[true], written[false])
	}
}

// TestCompactDeadStack: between calls the stack below its pointer is
// given back (it reads as the snapshot again), the rest of the memory is
// untouched, and the instance works on.
func TestCompactDeadStack(t *testing.T) {
	r, inst, c := newTestContext(t)
	if r.stack.top == 0 {
		t.Skip("no stack layout")
	}
	if err := inst.SetMaxStackSize(1 << 20); err != nil {
		t.Fatal(err)
	}
	snap, err := inst.Snapshot()
	if errors.Is(err, ErrSnapshotUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	inst2, err := r.NewInstanceFrom(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	defer inst2.Close()
	deep := `function f(n) { return n ? f(n - 1) + 1 : 0 } String(f(800))`
	if got := evalString(t, inst2, c, deep); got != "800" {
		t.Fatalf("got %s", got)
	}
	lo, hi, ok := inst2.deadStack()
	if !ok || hi != r.stack.top || hi-lo != 1<<20 {
		t.Fatalf("dead stack [%d, %d) %v, top %d", lo, hi, ok, r.stack.top)
	}
	inStack := func(pages []int) (n int) {
		for _, k := range pages {
			if k*osPage >= int(lo) && (k+1)*osPage <= int(hi) {
				n++
			}
		}
		return n
	}
	if n := inStack(privatePages(t, inst2)); n < 4 {
		t.Fatalf("the recursion wrote %d whole stack pages", n)
	}
	mem, _ := inst2.mem.Read(0, inst2.mem.Size())
	before := bytes.Clone(mem)
	if inst2.Compact() == 0 {
		t.Fatal("Compact released nothing")
	}
	if n := inStack(privatePages(t, inst2)); n != 0 {
		t.Errorf("%d stack pages kept", n)
	}
	mem, _ = inst2.mem.Read(0, inst2.mem.Size())
	if !bytes.Equal(before[:lo], mem[:lo]) || !bytes.Equal(before[hi:], mem[hi:]) {
		t.Fatal("memory outside the dead stack changed")
	}
	if got := evalString(t, inst2, c, deep); got != "800" {
		t.Fatalf("after Compact: got %s", got)
	}
}
