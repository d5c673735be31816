package quickjs

import (
	"errors"
	"fmt"
)

// dispatchExport names the function added by addDispatcher.
const dispatchExport = "codemode_dispatch"

// dispatchArgs is how many arguments the dispatcher passes on (after the
// target's number); QTS_Eval, the widest export we call, takes 6.
const dispatchArgs = 6

// Section ids addDispatcher rewrites besides those of rewrite.go.
const (
	secType     = 1
	secFunction = 3
)

// Wasm value types.
const (
	valI32 = 0x7f
	valI64 = 0x7e
	valF32 = 0x7d
	valF64 = 0x7c
)

// addDispatcher returns a copy of the module with one more exported
// function, dispatchExport, of type (i32 k, i64 × dispatchArgs) → i64,
// that calls the k-th of the exported functions named by targets with the
// first arguments (each i64 converted to the parameter's type: wrapped to
// i32, reinterpreted as f64) and returns its result widened to i64 (i32
// zero-extended, f64 reinterpreted, 0 when there is none). An unknown k
// traps. The encoding matches wazero's uint64 stack slots, so a caller
// passes the same slots it would pass the target.
//
// Why? wazero gives every api.Function its own call engine with a 10 KiB
// Go-allocated stack that grows by doubling and never shrinks; binding
// the 27 exports we call cost each instance about 370 KiB of Go heap, most
// of an idle persistent environment. Through the dispatcher an instance
// needs one api.Function per nesting level of calls (host functions call
// back in), usually two. The rejected alternative, binding exports lazily
// on first use, still binds about 15 per run and keeps a grown stack for
// each of the deep ones (Eval, Call, ExecutePendingJob).
func addDispatcher(wasm []byte, targets []string) ([]byte, error) {
	secs, m, err := readModule(wasm)
	if err != nil {
		return nil, err
	}
	exports := map[string]uint32{} // function exports: name → function index
	for _, s := range secs {
		if s.id != secExport {
			continue
		}
		p := reader{b: s.payload}
		n := p.u32()
		for k := uint32(0); k < n && p.err == nil; k++ {
			name := p.name()
			kind := p.byte()
			idx := p.u32()
			if kind == 0x00 {
				exports[name] = idx
			}
		}
		if p.err != nil {
			return nil, fmt.Errorf("export section: %w", p.err)
		}
	}
	if int(m.importedFuncs) == len(m.sigs) {
		return nil, errors.New("the module defines no function")
	}
	if _, dup := exports[dispatchExport]; dup {
		return nil, fmt.Errorf("the module already exports %s", dispatchExport)
	}

	// The body: a br_table over k into one arm per target.
	n := uint32(len(targets))
	body := []byte{0x00} // no locals
	for range n + 1 {
		body = append(body, 0x02, 0x40) // block
	}
	body = append(body, 0x20, 0x00, 0x0e) // local.get 0; br_table
	body = appendU32(body, n)
	for k := range n {
		body = appendU32(body, k)
	}
	body = appendU32(body, n) // default: past every arm
	for _, name := range targets {
		body = append(body, 0x0b) // end of the block arm k branches to
		fi, ok := exports[name]
		if !ok {
			return nil, fmt.Errorf("export %s missing", name)
		}
		if fi < m.importedFuncs || int(fi) >= len(m.sigs) {
			return nil, fmt.Errorf("export %s: not a defined function", name)
		}
		t := m.sigs[fi]
		if len(t.params) > dispatchArgs || len(t.results) > 1 {
			return nil, fmt.Errorf("export %s: %d parameters, %d results: too many to dispatch", name, len(t.params), len(t.results))
		}
		for j, vt := range t.params {
			body = append(body, 0x20)
			body = appendU32(body, uint32(j+1)) // local.get
			switch vt {
			case valI32:
				body = append(body, 0xa7) // i32.wrap_i64
			case valI64:
			case valF32:
				body = append(body, 0xa7, 0xbe) // i32.wrap_i64; f32.reinterpret_i32
			case valF64:
				body = append(body, 0xbf) // f64.reinterpret_i64
			default:
				return nil, fmt.Errorf("export %s: parameter type %#x", name, vt)
			}
		}
		body = append(body, 0x10) // call
		body = appendU32(body, fi)
		if len(t.results) == 0 {
			body = append(body, 0x42, 0x00) // i64.const 0
		} else {
			switch t.results[0] {
			case valI32:
				body = append(body, 0xad) // i64.extend_i32_u
			case valI64:
			case valF32:
				body = append(body, 0xbc, 0xad) // i32.reinterpret_f32; i64.extend_i32_u
			case valF64:
				body = append(body, 0xbd) // i64.reinterpret_f64
			default:
				return nil, fmt.Errorf("export %s: result type %#x", name, t.results[0])
			}
		}
		body = append(body, 0x0f) // return
	}
	body = append(body, 0x0b, 0x00, 0x0b) // end of the outermost block; unreachable; end

	typeIdx := m.numTypes
	funcIdx := uint32(len(m.sigs))
	out := append([]byte(nil), wasm[:8]...)
	for _, s := range secs {
		p := reader{b: s.payload}
		switch s.id {
		case secType:
			c := p.u32()
			b := appendU32(nil, c+1)
			b = append(b, s.payload[p.off:]...)
			b = append(b, 0x60)
			b = appendU32(b, dispatchArgs+1)
			b = append(b, valI32)
			for range dispatchArgs {
				b = append(b, valI64)
			}
			b = append(b, 0x01, valI64)
			out = appendSection(out, secType, b)
		case secFunction:
			c := p.u32()
			b := appendU32(nil, c+1)
			b = append(b, s.payload[p.off:]...)
			b = appendU32(b, typeIdx)
			out = appendSection(out, secFunction, b)
		case secExport:
			c := p.u32()
			b := appendU32(nil, c+1)
			b = append(b, s.payload[p.off:]...)
			b = appendU32(b, uint32(len(dispatchExport)))
			b = append(b, dispatchExport...)
			b = append(b, 0x00)
			b = appendU32(b, funcIdx)
			out = appendSection(out, secExport, b)
		case secCode:
			c := p.u32()
			b := appendU32(nil, c+1)
			b = append(b, s.payload[p.off:]...)
			b = appendU32(b, uint32(len(body)))
			b = append(b, body...)
			out = appendSection(out, secCode, b)
		default:
			out = append(out, wasm[s.start:s.end]...)
		}
	}
	return out, nil
}
