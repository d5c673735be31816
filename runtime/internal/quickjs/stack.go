package quickjs

import (
	"errors"
	"fmt"
)

// stackLayout is where the module's C stack lives in its linear memory:
// emscripten's layout puts the static data first, then the stack, which
// grows down from the initial value of the stack pointer global, then the
// heap. Between two calls nothing below the stack pointer is live (every
// export returns with the pointer restored, and wasm's C ABI has no red
// zone), so an idle instance may give those pages back whatever they hold
// (Instance.Compact): a run that went 14 KiB deep leaves 4 written pages
// there, ~6% of what an idle environment keeps.
type stackLayout struct {
	global string // export of the stack pointer (exportMutableGlobals' name)
	top    uint32 // the stack pointer's initial value
	// floor is the lowest address a dead-stack page may start at: the end
	// of the static data rounded up to a page, plus bssGuard for the
	// zero-initialised statics that follow it (not in any data segment).
	floor uint32
}

// bssGuard is how far above the last data segment the dead-stack drop
// stays: the bss (dlmalloc's state, QuickJS's statics) lies there, whose
// size the module does not state. This build's is ~3 KiB.
const bssGuard = 64 << 10

// findStack reads the stack's layout out of the original module: its one
// mutable i32 global initialised to a constant above every active data
// segment and within the initial memory. Anything else (no such global, two
// of them, passive data whose address is not static) is an error, and the
// instance then keeps its dead stack pages.
func findStack(wasm []byte, initBytes uint64) (stackLayout, error) {
	secs, err := splitSections(wasm)
	if err != nil {
		return stackLayout{}, err
	}
	var imported uint32
	type cand struct{ idx, val uint32 }
	var sps []cand
	var dataEnd uint64
	for _, sec := range secs {
		p := sec.payload
		switch sec.id {
		case secImport:
			n, err := countImportedGlobals(p)
			if err != nil {
				return stackLayout{}, err
			}
			imported = n
		case secGlobal:
			g := reader{b: p}
			n := g.u32()
			for k := uint32(0); k < n && g.err == nil; k++ {
				typ, mut := g.byte(), g.byte()
				start := g.off
				if err := skipConstExpr(&g); err != nil {
					return stackLayout{}, err
				}
				if mut != 1 {
					continue
				}
				c := reader{b: p, off: start}
				if typ != 0x7f || c.byte() != 0x41 {
					sps = append(sps, cand{idx: imported + k}) // not a candidate, but a rival
					continue
				}
				v := c.sleb32()
				if c.byte() != 0x0b || c.off != g.off {
					sps = append(sps, cand{idx: imported + k})
					continue
				}
				sps = append(sps, cand{idx: imported + k, val: uint32(v)})
			}
			if g.err != nil {
				return stackLayout{}, g.err
			}
		case secData:
			d := reader{b: p}
			n := d.u32()
			for k := uint32(0); k < n && d.err == nil; k++ {
				switch mode := d.u32(); mode {
				case 0, 2:
					if mode == 2 {
						d.u32() // memory index
					}
					if d.byte() != 0x41 {
						return stackLayout{}, fmt.Errorf("data segment %d: offset is not a constant", k)
					}
					off := uint64(uint32(d.sleb32()))
					if d.byte() != 0x0b {
						return stackLayout{}, fmt.Errorf("data segment %d: offset is not a constant", k)
					}
					l := d.u32()
					d.skip(int(l))
					dataEnd = max(dataEnd, off+uint64(l))
				default:
					return stackLayout{}, fmt.Errorf("data segment %d is passive", k)
				}
			}
			if d.err != nil {
				return stackLayout{}, d.err
			}
		}
	}
	if len(sps) != 1 {
		return stackLayout{}, fmt.Errorf("%d mutable globals, want the stack pointer alone", len(sps))
	}
	sp := sps[0]
	floor := (dataEnd+osPage-1)/osPage*osPage + bssGuard
	if uint64(sp.val) <= floor || uint64(sp.val) > initBytes {
		return stackLayout{}, fmt.Errorf("stack pointer %d outside (%d, %d]", sp.val, floor, initBytes)
	}
	return stackLayout{global: fmt.Sprintf("%s%d", snapshotGlobalPrefix, sp.idx), top: sp.val, floor: uint32(floor)}, nil
}

// sleb32 reads a signed LEB128 value of at most 32 bits.
func (r *reader) sleb32() int32 {
	var v int64
	var shift uint
	for r.err == nil {
		b := r.byte()
		v |= int64(b&0x7f) << shift
		shift += 7
		if b&0x80 == 0 {
			if shift < 64 && b&0x40 != 0 {
				v |= -1 << shift
			}
			break
		}
		if shift >= 35 {
			r.err = errors.New("signed LEB128 too long")
		}
	}
	return int32(v)
}

// deadStack returns the range of the memory below the stack pointer that
// nothing reads before writing: [lo, sp), lo the deepest the QuickJS stack
// limit lets a run go (SetMaxStackSize) and never under the layout's floor.
// ok is false when the instance has no known layout or is not between
// calls (the pointer is not at the top).
func (i *Instance) deadStack() (lo, hi uint32, ok bool) {
	st := i.r.stack
	if st.global == "" || i.maxStack == 0 {
		return 0, 0, false
	}
	g := i.mod.ExportedGlobal(st.global)
	if g == nil {
		return 0, 0, false
	}
	sp := uint32(g.Get())
	if sp != st.top {
		return 0, 0, false
	}
	lo = st.floor
	if st.top-st.floor > i.maxStack {
		lo = st.top - i.maxStack
	}
	return lo, sp, true
}
