package quickjs

import (
	"bytes"
	"errors"
	"fmt"
)

// funcSig is a function's parameter and result types.
type funcSig struct{ params, results []byte }

// moduleFuncs reads what the rewrites need to know of a module's functions
// and globals: the signature of every function (imports first, as function
// indices count them) and how many functions and globals are imported.
type moduleFuncs struct {
	sigs                           []funcSig
	typeIdx                        []uint32 // each function's type index
	importedFuncs, importedGlobals uint32
	definedGlobals                 uint32
	numTypes                       uint32 // entries of the type section
}

// readModule splits a module into its sections and reads its functions.
func readModule(wasm []byte) ([]wasmSection, moduleFuncs, error) {
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, moduleFuncs{}, err
	}
	m, err := readModuleFuncs(secs)
	return secs, m, err
}

func readModuleFuncs(secs []wasmSection) (moduleFuncs, error) {
	var m moduleFuncs
	var types []funcSig
	for _, s := range secs {
		p := reader{b: s.payload}
		switch s.id {
		case secType:
			n := p.u32()
			for k := uint32(0); k < n && p.err == nil; k++ {
				if form := p.byte(); form != 0x60 {
					return m, fmt.Errorf("type %d: unsupported form %#x", k, form)
				}
				var t [2][]byte
				for j := range 2 {
					c := p.u32()
					for range c {
						t[j] = append(t[j], p.byte())
					}
				}
				types = append(types, funcSig{t[0], t[1]})
			}
			m.numTypes = uint32(len(types))
		case secImport:
			n := p.u32()
			for k := uint32(0); k < n && p.err == nil; k++ {
				p.name()
				p.name()
				kind, ti, err := p.importDesc()
				if err != nil {
					return m, err
				}
				switch kind {
				case 0x00:
					if int(ti) >= len(types) {
						return m, fmt.Errorf("import %d: type %d out of range", k, ti)
					}
					m.sigs = append(m.sigs, types[ti])
					m.typeIdx = append(m.typeIdx, ti)
					m.importedFuncs++
				case 0x03:
					m.importedGlobals++
				}
			}
		case secFunction:
			n := p.u32()
			for k := uint32(0); k < n && p.err == nil; k++ {
				ti := p.u32()
				if int(ti) >= len(types) {
					return m, fmt.Errorf("function %d: type %d out of range", k, ti)
				}
				m.sigs = append(m.sigs, types[ti])
				m.typeIdx = append(m.typeIdx, ti)
			}
		case secGlobal:
			m.definedGlobals = p.u32()
		}
		if p.err != nil {
			return m, fmt.Errorf("section %d: %w", s.id, p.err)
		}
	}
	return m, nil
}

// inlineFastPath replaces every `call callee` in function caller (function
// indices, imports first) with fast(l): code that takes the callee's
// arguments from the stack, does the callee's common case itself and calls
// the callee for the rest, leaving the same results. The locals fast uses
// are added to the caller, of types newLocals; l holds their indices. The
// callee's body must be calleeBody (its size excluded): the fast path's
// equivalence with the callee was established against exactly that code.
// It returns the module and how many calls it replaced.
//
// Why not let wasm-opt inline? Its inliner copies whole functions (the
// slow path too) and only the tiniest at -O2; what is worth copying here is
// a handful of instructions of a function that is small only in its
// common case, into the one function where a call costs: the interpreter.
func inlineFastPath(wasm []byte, caller, callee uint32, calleeBody, newLocals []byte, fast func(l []uint32) []byte) ([]byte, int, error) {
	secs, m, err := readModule(wasm)
	if err != nil {
		return nil, 0, err
	}
	if caller < m.importedFuncs || callee < m.importedFuncs || int(caller) >= len(m.sigs) || int(callee) >= len(m.sigs) {
		return nil, 0, fmt.Errorf("functions %d and %d: not both defined in the module", caller, callee)
	}
	calls, checked := 0, false
	out := append([]byte(nil), wasm[:8]...)
	for _, s := range secs {
		if s.id != secCode {
			out = append(out, wasm[s.start:s.end]...)
			continue
		}
		code, err := forBodies(s.payload, 0, func(f uint32, body []byte) ([]byte, error) {
			switch f + m.importedFuncs {
			case callee:
				if !bytes.Equal(body, calleeBody) {
					return nil, fmt.Errorf("function %d is not the expected code", callee)
				}
				checked = true
			case caller:
				body, first, err := addLocals(body, uint32(len(m.sigs[caller].params)), newLocals)
				if err != nil {
					return nil, err
				}
				l := make([]uint32, len(newLocals))
				for k := range l {
					l[k] = first + uint32(k)
				}
				repl := fast(l)
				return editInstrs(body, func(op byte, instr []byte) []byte {
					if op != 0x10 {
						return nil
					}
					if c := (reader{b: instr, off: 1}); c.u32() != callee {
						return nil
					}
					calls++
					return repl
				})
			}
			return nil, nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("code section: %w", err)
		}
		out = appendSection(out, secCode, code)
	}
	if !checked {
		return nil, 0, fmt.Errorf("function %d not found", callee)
	}
	if calls == 0 {
		return nil, 0, fmt.Errorf("function %d does not call function %d", caller, callee)
	}
	return out, calls, nil
}

// addLocals returns body (a function body after its size) with one local
// of each type in types declared after its own, and the index of the first
// (locals are numbered after the nParams parameters).
func addLocals(body []byte, nParams uint32, types []byte) ([]byte, uint32, error) {
	r := reader{b: body}
	groups := r.u32()
	declared := r.off
	n := nParams
	for k := uint32(0); k < groups; k++ {
		n += r.u32()
		r.byte()
	}
	if r.err != nil {
		return nil, 0, fmt.Errorf("locals: %w", r.err)
	}
	if uint64(n)+uint64(len(types)) > 50000 {
		return nil, 0, errors.New("too many locals")
	}
	out := appendU32(nil, groups+uint32(len(types)))
	out = append(out, body[declared:r.off]...)
	for _, t := range types {
		out = append(out, 0x01, t)
	}
	return append(out, body[r.off:]...), n, nil
}
