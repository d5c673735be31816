package quickjs

import (
	"errors"
	"fmt"
)

// addHostMask routes every direct call of the host-call import (hostCall:
// qts_host_call_function, whose last parameter is the host function's id)
// through a new function that first tests the id's bit in a new mutable
// i32 global, the mask: set, the call returns 0 (undefined) without
// leaving the wasm; clear, it calls the import. It returns the module and
// the mask's global index (exportMutableGlobals, run after, exports it).
//
// Why: a console line dropped once the run's log budget is spent cost
// QuickJS's call of a native function plus one crossing into Go, whose
// only work was to read the run's flag (~0.1 µs of ~0.33 µs; a native
// no-op costs ~0.22 µs). With the mask set by Go when it first sees the
// budget spent, the rest of the run's dropped lines stay in the wasm, and
// console's methods stay the same functions (Instance.SetSilent).
func addHostMask(wasm []byte, hostCall uint32) ([]byte, uint32, error) {
	secs, m, err := readModule(wasm)
	if err != nil {
		return nil, 0, err
	}
	if hostCall >= m.importedFuncs {
		return nil, 0, fmt.Errorf("function %d is not an imported function", hostCall)
	}
	hostParams, hostResults := m.sigs[hostCall].params, m.sigs[hostCall].results
	if len(hostParams) == 0 || hostParams[len(hostParams)-1] != valI32 || len(hostResults) != 1 || hostResults[0] != valI32 {
		return nil, 0, errors.New("the host-call import is not (…, i32 id) → i32")
	}
	hostType := m.typeIdx[hostCall]
	mask := m.importedGlobals + m.definedGlobals
	shim := uint32(len(m.sigs))
	id := uint32(len(hostParams) - 1)

	// if (id < 32 ? mask & (1 << id) : 0) 0 else hostCall(params…)
	gi := appendU32(nil, mask)
	body := []byte{0x00}                                         // no locals
	body = append(append(body, 0x20), appendU32(nil, id)...)     // local.get id
	body = append(body, 0x41, 0x20, 0x49, 0x04, valI32)          // i32.const 32; i32.lt_u; if (result i32)
	body = append(append(append(body, 0x23), gi...), 0x41, 0x01) // global.get mask; i32.const 1
	body = append(append(body, 0x20), appendU32(nil, id)...)     // local.get id
	body = append(body, 0x74, 0x71, 0x05, 0x41, 0x00, 0x0b)      // i32.shl; i32.and; else i32.const 0; end
	body = append(body, 0x04, valI32, 0x41, 0x00, 0x05)          // if (result i32) i32.const 0 else
	for k := range uint32(len(hostParams)) {
		body = append(append(body, 0x20), appendU32(nil, k)...) // local.get k
	}
	body = append(append(body, 0x10), appendU32(nil, hostCall)...) // call hostCall
	body = append(body, 0x0b, 0x0b)                                // end; end

	out := append([]byte(nil), wasm[:8]...)
	found := 0
	for _, s := range secs {
		p := reader{b: s.payload}
		switch s.id {
		case secFunction:
			c := p.u32()
			b := appendU32(nil, c+1)
			b = append(b, s.payload[p.off:]...)
			b = appendU32(b, hostType)
			out = appendSection(out, secFunction, b)
		case secGlobal:
			c := p.u32()
			b := appendU32(nil, c+1)
			b = append(b, s.payload[p.off:]...)
			b = append(b, valI32, 0x01, 0x41, 0x00, 0x0b) // mut i32 = 0
			out = appendSection(out, secGlobal, b)
		case secCode:
			b, n, err := redirectCalls(s.payload, hostCall, shim)
			if err != nil {
				return nil, 0, fmt.Errorf("code section: %w", err)
			}
			found = n
			b = appendU32(b, uint32(len(body)))
			b = append(b, body...)
			out = appendSection(out, secCode, b)
		default:
			out = append(out, wasm[s.start:s.end]...)
		}
	}
	if found == 0 {
		return nil, 0, errors.New("nothing calls the host-call import")
	}
	return out, mask, nil
}

// redirectCalls rewrites every `call from` of a code section into `call
// to`, and returns the section's payload with its count raised by one (for
// the body the caller appends) and how many calls it rewrote.
func redirectCalls(p []byte, from, to uint32) ([]byte, int, error) {
	calls := 0
	out, err := editBodies(p, 1, func(op byte, instr []byte) []byte {
		if op != 0x10 {
			return nil
		}
		if c := (reader{b: instr, off: 1}); c.u32() != from {
			return nil
		}
		calls++
		return appendU32([]byte{0x10}, to)
	})
	return out, calls, err
}
