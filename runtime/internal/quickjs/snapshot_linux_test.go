package quickjs

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// TestSnapshotRestore: a restored instance is the snapshotted one, whatever
// ran since, in the same instance and in a new one; memory grown past the
// snapshot reads as zero.
func TestSnapshotRestore(t *testing.T) {
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

// BenchmarkRestore measures a restore after a small program: the cost of a
// fresh environment once the snapshot is mapped.
func BenchmarkRestore(b *testing.B) {
	_, inst, c := newTestContext(b)
	snap, err := inst.Snapshot()
	if err != nil {
		b.Skip(err)
	}
	defer snap.Close()
	for b.Loop() {
		v, err := inst.Eval(c, `let a = []; for (let i = 0; i < 100; i++) a.push({i}); JSON.stringify(a).length`, "b.js", EvalGlobal)
		if err != nil {
			b.Fatal(err)
		}
		inst.FreeValue(c, v)
		if err := inst.Restore(snap); err != nil {
			b.Fatal(err)
		}
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
