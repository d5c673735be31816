package quickjs

import (
	"bytes"
	"errors"
	"fmt"
)

// Wasm section ids (https://webassembly.github.io/spec/core/binary/modules.html).
const (
	secCustom    = 0
	secImport    = 2
	secMemory    = 5
	secTag       = 13
	secGlobal    = 6
	secExport    = 7
	secStart     = 8
	secElement   = 9
	secDataCount = 12
	secCode      = 10
	secData      = 11
)

// memoryImport describes the memory import that was removed.
type memoryImport struct {
	module, name string
	min          uint32
	max          uint32 // 0 with hasMax false
	hasMax       bool
}

// defineImportedMemory returns a copy of the module in which the (only)
// imported memory is replaced by a memory defined in the module itself, with
// the import's minimum and the given maximum (in 64 KiB pages).
//
// Why: emscripten's module imports "memory" from the same module name as its
// functions ("a"), and wazero host modules can export functions but not
// memories. A defined memory keeps index 0 (imports come first in the index
// space and there is no other memory), so no instruction changes. The
// alternative, a generated wasm module that defines the memory and re-exports
// Go functions under "a", costs a second instantiation per instance.
func defineImportedMemory(wasm []byte, maxPages uint32) ([]byte, memoryImport, error) {
	var mi memoryImport
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) || !bytes.Equal(wasm[4:8], []byte{1, 0, 0, 0}) {
		return nil, mi, errors.New("not a version-1 wasm binary")
	}
	out := append([]byte(nil), wasm[:8]...)
	r := reader{b: wasm, off: 8}
	found, inserted := false, false
	for r.off < len(r.b) {
		start := r.off
		id := r.byte()
		size := r.u32()
		if r.err != nil || r.off+int(size) > len(r.b) {
			return nil, mi, fmt.Errorf("truncated section at offset %d", start)
		}
		payload := r.b[r.off : r.off+int(size)]
		r.off += int(size)
		switch {
		case id == secImport:
			np, m, ok, err := dropMemoryImport(payload)
			if err != nil {
				return nil, mi, fmt.Errorf("import section: %w", err)
			}
			if !ok {
				return nil, mi, errors.New("the module imports no memory: not the emscripten build this code expects")
			}
			mi, found = m, true
			out = appendSection(out, secImport, np)
			continue
		case id == secMemory:
			return nil, mi, errors.New("the module defines a memory of its own: not the emscripten build this code expects")
		case !inserted && found && afterMemory(id):
			out = appendSection(out, secMemory, memorySection(mi.min, maxPages))
			inserted = true
		}
		out = append(out, r.b[start:r.off]...)
	}
	if !found {
		return nil, mi, errors.New("the module has no import section")
	}
	if !inserted {
		out = appendSection(out, secMemory, memorySection(mi.min, maxPages))
	}
	if mi.min > maxPages {
		return nil, mi, fmt.Errorf("the module needs %d initial pages, more than the maximum %d", mi.min, maxPages)
	}
	return out, mi, nil
}

// afterMemory reports whether a section with this id must come after the
// memory section in a valid module.
func afterMemory(id byte) bool {
	switch id {
	case secTag, secGlobal, secExport, secStart, secElement, secDataCount, secCode, secData:
		return true
	}
	return false
}

func memorySection(min, max uint32) []byte {
	b := []byte{1, 0x01} // one memory; limits flag 1: min and max
	b = appendU32(b, min)
	return appendU32(b, max)
}

func appendSection(out []byte, id byte, payload []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(payload)))
	return append(out, payload...)
}

// wasmSection is one section of a module: its id, where it lies whole
// (header included) and its payload.
type wasmSection struct {
	id         byte
	start, end int
	payload    []byte
}

// splitSections returns the sections of a module, in order.
func splitSections(wasm []byte) ([]wasmSection, error) {
	var secs []wasmSection
	r := reader{b: wasm, off: 8}
	for r.off < len(r.b) {
		start := r.off
		id := r.byte()
		size := r.u32()
		if r.err != nil || r.off+int(size) > len(r.b) {
			return nil, fmt.Errorf("truncated section at offset %d", start)
		}
		secs = append(secs, wasmSection{id: id, start: start, end: r.off + int(size), payload: r.b[r.off : r.off+int(size)]})
		r.off += int(size)
	}
	return secs, nil
}

// dropMemoryImport re-encodes an import section without its memory import.
func dropMemoryImport(p []byte) ([]byte, memoryImport, bool, error) {
	var mi memoryImport
	r := reader{b: p}
	n := r.u32()
	var body []byte
	kept := uint32(0)
	found := false
	for i := uint32(0); i < n && r.err == nil; i++ {
		start := r.off
		mod := r.name()
		name := r.name()
		if r.off < len(p) && p[r.off] == 0x02 { // memory: limits
			r.byte()
			flags, min, max := r.limits()
			if flags&^1 != 0 {
				return nil, mi, false, fmt.Errorf("memory import %s.%s has unsupported limits flags %#x (shared or 64-bit)", mod, name, flags)
			}
			if found {
				return nil, mi, false, errors.New("more than one memory import")
			}
			mi = memoryImport{module: mod, name: name, min: min, max: max, hasMax: flags&1 != 0}
			found = true
			continue
		}
		if _, _, err := r.importDesc(); err != nil {
			return nil, mi, false, err
		}
		body = append(body, p[start:r.off]...)
		kept++
	}
	if r.err != nil {
		return nil, mi, false, r.err
	}
	if r.off != len(p) {
		return nil, mi, false, errors.New("trailing bytes")
	}
	return append(appendU32(nil, kept), body...), mi, found, nil
}

// reader decodes the few wasm encodings the rewrite needs; the first error
// sticks and later reads return zero values.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.err = errors.New("unexpected end")
		return 0
	}
	c := r.b[r.off]
	r.off++
	return c
}

func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errors.New("LEB128 too long")
	return 0
}

func (r *reader) name() string {
	n := int(r.u32())
	if r.err != nil {
		return ""
	}
	if r.off+n > len(r.b) {
		r.err = errors.New("name runs past the end")
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return s
}

func (r *reader) limits() (flags byte, min, max uint32) {
	flags = r.byte()
	min = r.u32()
	if flags&1 != 0 {
		max = r.u32()
	}
	return flags, min, max
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// pollEvery is how many loop iterations run between two polls.
const pollEvery = 1 << 20

// addPolling adds a mutable i32 global (a countdown) and makes every loop
// of every function decrement it on each iteration; when it reaches zero
// the loop resets it to pollEvery and calls function pollFunc (an import
// of type i32 → i32) with argument 0, dropping the result.
//
// Why: QuickJS's interrupt handler is polled by the bytecode interpreter,
// but not inside long built-ins (a BigInt power, a sort without
// comparator, a garbage collection), which can run for seconds. Machine
// code that never calls out to Go cannot be stopped, and worse, it cannot
// be preempted: a garbage collection that starts meanwhile stops every
// goroutine of the process until the call returns. The poll is a call into
// Go every million loop iterations (a few milliseconds at most): a
// preemption point, and the place where a hard stop (Instance.Stop) takes
// effect by trapping.
//
// wazero's WithCloseOnContextDone also stops anything, but it implements
// its check as an indirect call at every loop header, which made QuickJS's
// interpreter loop five times slower (fib(25): 136 ms against 22 ms) and
// gives the Go scheduler no safe point either. The countdown costs a few
// percent.
func addPolling(wasm []byte, pollFunc uint32) ([]byte, error) {
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	importedGlobals := uint32(0)
	definedGlobals := uint32(0)
	hasGlobal := false
	for _, s := range secs {
		switch s.id {
		case secImport:
			n, err := countImportedGlobals(s.payload)
			if err != nil {
				return nil, fmt.Errorf("import section: %w", err)
			}
			importedGlobals = n
		case secGlobal:
			g := reader{b: s.payload}
			definedGlobals = g.u32()
			hasGlobal = true
		}
	}
	if !hasGlobal {
		return nil, errors.New("the module has no global section")
	}
	idx := importedGlobals + definedGlobals

	out := append([]byte(nil), wasm[:8]...)
	for _, s := range secs {
		switch s.id {
		case secGlobal:
			g := reader{b: s.payload}
			n := g.u32()
			p := appendU32(nil, n+1)
			p = append(p, s.payload[g.off:]...)
			p = append(p, 0x7f, 0x01, 0x41) // mut i32 = i32.const pollEvery
			p = appendS32(p, pollEvery)
			p = append(p, 0x0b)
			out = appendSection(out, secGlobal, p)
		case secCode:
			p, err := instrumentLoops(s.payload, pollCheck(idx, pollFunc))
			if err != nil {
				return nil, fmt.Errorf("code section: %w", err)
			}
			out = appendSection(out, secCode, p)
		default:
			out = append(out, wasm[s.start:s.end]...)
		}
	}
	return out, nil
}

// pollCheck is the code inserted at each loop header:
//
//	global.set $c (i32.sub (global.get $c) (i32.const 1))
//	if (i32.eqz (global.get $c))
//	  global.set $c (i32.const pollEvery)
//	  drop (call $poll (i32.const 0))
//	end
func pollCheck(g, poll uint32) []byte {
	gi := appendU32(nil, g)
	var b []byte
	b = append(append(b, 0x23), gi...) // global.get
	b = append(b, 0x41, 0x01, 0x6b)    // i32.const 1; i32.sub
	b = append(append(b, 0x24), gi...) // global.set
	b = append(append(b, 0x23), gi...) // global.get
	b = append(b, 0x45, 0x04, 0x40)    // i32.eqz; if (empty)
	b = appendS32(append(b, 0x41), pollEvery)
	b = append(append(b, 0x24), gi...)                   // global.set
	b = append(b, 0x41, 0x00)                            // i32.const 0
	b = append(append(b, 0x10), appendU32(nil, poll)...) // call
	return append(b, 0x1a, 0x0b)                         // drop; end
}

// appendS32 appends v as a signed LEB128.
func appendS32(b []byte, v int32) []byte { return appendS64(b, int64(v)) }

// funcImportIndex returns the function index of import module.name.
func funcImportIndex(wasm []byte, module, name string) (uint32, error) {
	r := reader{b: wasm, off: 8}
	for r.off < len(r.b) {
		id := r.byte()
		size := r.u32()
		if r.err != nil || r.off+int(size) > len(r.b) {
			return 0, errors.New("truncated section")
		}
		if id != secImport {
			r.off += int(size)
			continue
		}
		p := reader{b: r.b[r.off : r.off+int(size)]}
		n := p.u32()
		fn := uint32(0)
		for i := uint32(0); i < n && p.err == nil; i++ {
			mod, nm := p.name(), p.name()
			kind, _, err := p.importDesc()
			if err != nil {
				return 0, err
			}
			if kind == 0x00 {
				if mod == module && nm == name {
					return fn, nil
				}
				fn++
			}
		}
		return 0, fmt.Errorf("no function import %s.%s", module, name)
	}
	return 0, errors.New("no import section")
}

func countImportedGlobals(p []byte) (uint32, error) {
	r := reader{b: p}
	n := r.u32()
	globals := uint32(0)
	for i := uint32(0); i < n && r.err == nil; i++ {
		r.name()
		r.name()
		kind, _, err := r.importDesc()
		if err != nil {
			return 0, err
		}
		if kind == 0x03 {
			globals++
		}
	}
	return globals, r.err
}

// importDesc reads an import's kind and skips its description; for a
// function import it returns the type index.
func (r *reader) importDesc() (kind byte, typeIdx uint32, err error) {
	switch kind = r.byte(); kind {
	case 0x00: // func: type index
		typeIdx = r.u32()
	case 0x01: // table: reftype, limits
		r.byte()
		r.limits()
	case 0x02: // memory: limits
		r.limits()
	case 0x03: // global: valtype, mut
		r.byte()
		r.byte()
	case 0x04: // tag: attribute, type index
		r.byte()
		r.u32()
	default:
		return kind, 0, fmt.Errorf("unknown import kind %#x", kind)
	}
	return kind, typeIdx, nil
}

// instrumentLoops rewrites each function body of a code section so that
// every `loop` starts with check, except a loop right after a nop (see
// unpolledLoop). The inserted code is self-contained (balanced stack, a
// complete block), so no branch depth changes.
func instrumentLoops(p []byte, check []byte) ([]byte, error) {
	afterNop := false
	return editBodies(p, 0, func(op byte, instr []byte) []byte {
		skip := afterNop
		afterNop = op == 0x01
		if op != 0x03 || skip {
			return nil
		}
		return append(append([]byte(nil), instr...), check...)
	})
}

// editBodies re-encodes a code section with each instruction for which
// edit returns bytes replaced by them (instr is the instruction with its
// immediates; nil keeps it), and the section's function count raised by
// extra, for bodies the caller appends.
func editBodies(p []byte, extra uint32, edit func(op byte, instr []byte) []byte) ([]byte, error) {
	return forBodies(p, extra, func(_ uint32, body []byte) ([]byte, error) { return editInstrs(body, edit) })
}

// forBodies re-encodes a code section with each function body (after its
// size) replaced by what fn returns for it (nil keeps it; f counts the
// section's bodies from 0), and the function count raised by extra.
func forBodies(p []byte, extra uint32, fn func(f uint32, body []byte) ([]byte, error)) ([]byte, error) {
	r := reader{b: p}
	n := r.u32()
	out := appendU32(nil, n+extra)
	for f := uint32(0); f < n; f++ {
		size := int(r.u32())
		if r.err != nil || r.off+size > len(p) {
			return nil, fmt.Errorf("function %d: truncated", f)
		}
		body := p[r.off : r.off+size]
		r.off += size
		nb, err := fn(f, body)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", f, err)
		}
		if nb == nil {
			nb = body
		}
		out = appendU32(out, uint32(len(nb)))
		out = append(out, nb...)
	}
	if r.err != nil || r.off != len(p) {
		return nil, errors.New("trailing bytes")
	}
	return out, nil
}

// editInstrs returns a function body (after its size) with each
// instruction for which edit returns bytes replaced by them (see
// editBodies).
func editInstrs(body []byte, edit func(op byte, instr []byte) []byte) ([]byte, error) {
	b := reader{b: body}
	nl := b.u32()
	for k := uint32(0); k < nl; k++ {
		b.u32()
		b.byte()
	}
	if b.err != nil {
		return nil, fmt.Errorf("locals: %w", b.err)
	}
	out := append([]byte(nil), body[:b.off]...)
	last := b.off
	for b.off < len(body) {
		at := b.off
		op := b.byte()
		if err := skipImmediates(&b, op); err != nil {
			return nil, fmt.Errorf("at +%d: %w", b.off, err)
		}
		if rep := edit(op, body[at:b.off]); rep != nil {
			out = append(out, body[last:at]...)
			out = append(out, rep...)
			last = b.off
		}
	}
	return append(out, body[last:]...), nil
}

// skipImmediates advances past the immediates of instruction op. It knows
// the MVP, sign extension, saturating truncation, bulk memory, reference
// types and tail calls; anything else (SIMD, atomics, exceptions) is an
// error rather than a misparse.
func skipImmediates(r *reader, op byte) error {
	switch {
	case op == 0x02 || op == 0x03 || op == 0x04: // block, loop, if
		r.blockType()
	case op == 0x0c || op == 0x0d: // br, br_if
		r.u32()
	case op == 0x0e: // br_table
		n := r.u32()
		for k := uint32(0); k <= n && r.err == nil; k++ {
			r.u32()
		}
	case op == 0x10 || op == 0x12: // call, return_call
		r.u32()
	case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
		r.u32()
		r.u32()
	case op == 0x1c: // select t*
		n := r.u32()
		for k := uint32(0); k < n && r.err == nil; k++ {
			r.byte()
		}
	case op >= 0x20 && op <= 0x26: // local.*, global.*, table.get/set
		r.u32()
	case op >= 0x28 && op <= 0x3e: // loads and stores: memarg
		r.u32()
		r.u32()
	case op == 0x3f || op == 0x40: // memory.size, memory.grow
		r.byte()
	case op == 0x41 || op == 0x42: // i32.const, i64.const
		r.sleb()
	case op == 0x43:
		r.skip(4)
	case op == 0x44:
		r.skip(8)
	case op == 0xd0: // ref.null t
		r.byte()
	case op == 0xd2: // ref.func
		r.u32()
	case op == 0xfc:
		sub := r.u32()
		switch {
		case sub <= 7: // saturating truncations
		case sub == 8: // memory.init
			r.u32()
			r.byte()
		case sub == 9, sub == 13, sub >= 15 && sub <= 17: // data.drop, elem.drop, table.grow/size/fill
			r.u32()
		case sub == 10: // memory.copy
			r.byte()
			r.byte()
		case sub == 11: // memory.fill
			r.byte()
		case sub == 12, sub == 14: // table.init, table.copy
			r.u32()
			r.u32()
		default:
			return fmt.Errorf("unknown instruction 0xfc %d", sub)
		}
	case op <= 0x01, op == 0x05, op == 0x0b, op == 0x0f, op == 0x1a, op == 0x1b,
		op >= 0x45 && op <= 0xc4, op == 0xd1:
		// no immediates
	default:
		return fmt.Errorf("unsupported instruction %#x", op)
	}
	return r.err
}

// blockType skips a block type: 0x40, a value type, or an s33 type index.
func (r *reader) blockType() {
	if r.off < len(r.b) {
		switch c := r.b[r.off]; {
		case c == 0x40 || c >= 0x6f && c <= 0x7f:
			r.off++
			return
		}
	}
	r.sleb()
}

// sleb skips a signed LEB128 number.
func (r *reader) sleb() {
	for k := 0; k < 10; k++ {
		if r.byte()&0x80 == 0 {
			return
		}
	}
	r.err = errors.New("LEB128 too long")
}

func (r *reader) skip(n int) {
	if r.off+n > len(r.b) {
		r.err = errors.New("unexpected end")
		return
	}
	r.off += n
}

// snapshotGlobalPrefix names the exports added by exportMutableGlobals.
const snapshotGlobalPrefix = "codemode_global_"

// exportMutableGlobals returns a copy of the module that exports every
// mutable global it defines (as snapshotGlobalPrefix + index), and the
// export names: a snapshot (Instance.Snapshot) must save and restore them
// with the linear memory, and wazero reaches only exported globals.
//
// Why not assume the globals are equal between top-level calls? Most are
// (the stack pointer is restored by every return), but a build may keep
// other state there; saving all of them costs a few loads and is exact.
func exportMutableGlobals(wasm []byte) ([]byte, []string, error) {
	var importedGlobals uint32
	var names []string
	var globalIdx []uint32
	out := append([]byte(nil), wasm[:8]...)
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range secs {
		switch s.id {
		case secImport:
			n, err := countImportedGlobals(s.payload)
			if err != nil {
				return nil, nil, fmt.Errorf("import section: %w", err)
			}
			importedGlobals = n
		case secGlobal:
			g := reader{b: s.payload}
			n := g.u32()
			for k := uint32(0); k < n && g.err == nil; k++ {
				g.byte() // value type
				mut := g.byte()
				if err := skipConstExpr(&g); err != nil {
					return nil, nil, fmt.Errorf("global %d: %w", k, err)
				}
				if mut == 1 {
					globalIdx = append(globalIdx, importedGlobals+k)
				}
			}
			if g.err != nil {
				return nil, nil, fmt.Errorf("global section: %w", g.err)
			}
		}
	}
	found := false
	for _, s := range secs {
		if s.id != secExport {
			out = append(out, wasm[s.start:s.end]...)
			continue
		}
		found = true
		e := reader{b: s.payload}
		n := e.u32()
		if e.err != nil {
			return nil, nil, fmt.Errorf("export section: %w", e.err)
		}
		p := appendU32(nil, n+uint32(len(globalIdx)))
		p = append(p, s.payload[e.off:]...)
		for _, gi := range globalIdx {
			name := fmt.Sprintf("%s%d", snapshotGlobalPrefix, gi)
			names = append(names, name)
			p = appendU32(p, uint32(len(name)))
			p = append(p, name...)
			p = append(p, 0x03)
			p = appendU32(p, gi)
		}
		out = appendSection(out, secExport, p)
	}
	if !found {
		return nil, nil, errors.New("the module has no export section")
	}
	return out, names, nil
}

// skipConstExpr advances past a constant expression (a global's
// initializer) and its end opcode.
func skipConstExpr(r *reader) error {
	for r.err == nil {
		switch op := r.byte(); op {
		case 0x0b:
			return nil
		case 0x41, 0x42: // i32.const, i64.const (signed LEB128)
			for r.err == nil && r.byte()&0x80 != 0 {
			}
		case 0x43:
			r.off += 4
		case 0x44:
			r.off += 8
		case 0x23, 0xd2: // global.get, ref.func
			r.u32()
		case 0xd0: // ref.null
			r.byte()
		case 0x6a, 0x6b, 0x6c, 0x7c, 0x7d, 0x7e: // extended constant arithmetic
		default:
			return fmt.Errorf("unsupported opcode %#x in a constant expression", op)
		}
		if r.off > len(r.b) {
			return errors.New("truncated constant expression")
		}
	}
	return r.err
}
