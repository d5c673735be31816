package quickjs

import (
	"bytes"
	"errors"
	"fmt"
)

// Fixes of QuickJS-ng bugs in the pinned build, applied to its code at load
// time (the build is pinned by sha256, so each fix finds exactly the code it
// replaces, or the load fails).
//
// Why patch the binary rather than take a newer build? The fixed releases
// come with a different emscripten glue (new minified names, the ABI table
// in abi.go to redo) and QuickJS-ng behaviour changes the corpus and the
// test262 differential would have to be re-examined for; a fix of a few
// bytes, checked against the exact code it replaces, changes nothing else.
// Each fix names the upstream commit; when the pinned build moves past it,
// the fix fails to find its code and must be dropped.

// mappedArgumentsMark is js_mapped_arguments_mark as the pinned build
// compiles it (function 1103; the body after its size), QuickJS-ng 0.12:
//
//	if (p->fast_array && var_refs)
//	    for (i = 0; i < p->u.array.count; i++)
//	        if (var_refs[i])
//	            mark_func(rt, &var_refs[i]->header);
//
// A var_ref that is not detached (its variable still lives in a running
// frame: the mapped arguments object of a sloppy function that is still
// executing) is not a GC object: its header's list links overlap pvalue and
// padding. A GC cycle during such a call (any allocation-heavy loop) takes
// its count to zero in the decref pass and back to one in the scan pass,
// which unlinks the var_ref from a list it is not in: it writes the
// uninitialised padding word over the argument's tag and pvalue to wherever
// that word points, then re-points pvalue at the runtime's GC list. The
// program reads a corrupted argument, writes through it into the runtime,
// or traps (out of bounds, abort) — four lines of sloppy JavaScript crash
// the engine (TestMappedArgumentsGC). Upstream fix: QuickJS-ng commit
// 3973106 ("Fix UAF when handling non-detached var-refs in mapped
// arguments", issue 1400, in 0.13.0).
var mappedArgumentsMark = []byte{
	0x01, 0x04, 0x7f, // 4 i32 locals: i, p, var_refs, var_ref
	0x02, 0x40, // block
	0x20, 0x01, 0xa7, 0x22, 0x04, // p = (JSObject *)val
	0x2d, 0x00, 0x05, 0x41, 0x08, 0x71, 0x45, 0x0d, 0x00, // if (!p->fast_array) break
	0x20, 0x04, 0x28, 0x02, 0x24, 0x22, 0x05, 0x45, 0x0d, 0x00, // if (!(var_refs = p->u.array.u.var_refs)) break
	0x03, 0x40, // loop
	0x20, 0x03, 0x20, 0x04, 0x28, 0x02, 0x28, 0x4f, 0x0d, 0x01, // if (i >= p->u.array.count) break
	0x20, 0x05, 0x20, 0x03, 0x41, 0x02, 0x74, 0x6a, 0x28, 0x02, 0x00, 0x22, 0x06, // var_ref = var_refs[i]
	0x04, 0x40, // if (var_ref)
	0x20, 0x00, 0x20, 0x06, 0x20, 0x02, 0x11, 0x02, 0x00, // mark_func(rt, &var_ref->header)
	0x0b,                                     // end
	0x20, 0x03, 0x41, 0x01, 0x6a, 0x21, 0x03, // i++
	0x0c, 0x00, // continue
	0x0b, 0x00, // end loop; unreachable
	0x0b, 0x0b, // end block; end
}

// mappedArgumentsMarkFix is the upstream fix: only a detached var_ref (a
// GC object) is marked. is_detached is the byte at offset 5 of JSVarRef
// (after the 4-byte ref_count and the mark byte).
var mappedArgumentsMarkFix = func() []byte {
	call := []byte{0x04, 0x40, 0x20, 0x00, 0x20, 0x06, 0x20, 0x02, 0x11, 0x02, 0x00, 0x0b}
	fixed := []byte{
		0x04, 0x40, // if (var_ref)
		0x20, 0x06, 0x2d, 0x00, 0x05, // var_ref->is_detached
		0x04, 0x40, // if
		0x20, 0x00, 0x20, 0x06, 0x20, 0x02, 0x11, 0x02, 0x00, // mark_func(rt, &var_ref->header)
		0x0b, 0x0b, // end; end
	}
	if bytes.Count(mappedArgumentsMark, call) != 1 {
		panic("quickjs: mappedArgumentsMark lost its call")
	}
	return bytes.Replace(mappedArgumentsMark, call, fixed, 1)
}()

// fixQuickJS applies the fixes above to the module's code section. Each
// body must occur exactly once.
func fixQuickJS(wasm []byte) ([]byte, error) {
	fixes := []struct {
		name     string
		old, new []byte
	}{
		{"js_mapped_arguments_mark (QuickJS-ng 3973106)", mappedArgumentsMark, mappedArgumentsMarkFix},
	}
	r := reader{b: wasm, off: 8}
	out := append([]byte(nil), wasm[:8]...)
	found := make([]int, len(fixes))
	for r.off < len(r.b) {
		start := r.off
		id := r.byte()
		size := r.u32()
		if r.err != nil || r.off+int(size) > len(r.b) {
			return nil, fmt.Errorf("truncated section at offset %d", start)
		}
		payload := r.b[r.off : r.off+int(size)]
		r.off += int(size)
		if id != secCode {
			out = append(out, wasm[start:r.off]...)
			continue
		}
		p := reader{b: payload}
		n := p.u32()
		code := appendU32(nil, n)
		for f := uint32(0); f < n; f++ {
			sz := int(p.u32())
			if p.err != nil || p.off+sz > len(payload) {
				return nil, fmt.Errorf("function %d: truncated", f)
			}
			body := payload[p.off : p.off+sz]
			p.off += sz
			for k, fx := range fixes {
				if bytes.Equal(body, fx.old) {
					body = fx.new
					found[k]++
				}
			}
			code = appendU32(code, uint32(len(body)))
			code = append(code, body...)
		}
		if p.off != len(payload) {
			return nil, errors.New("code section: trailing bytes")
		}
		out = appendSection(out, secCode, code)
	}
	for k, fx := range fixes {
		if found[k] != 1 {
			return nil, fmt.Errorf("fix %s: found the code to replace %d times, want once", fx.name, found[k])
		}
	}
	return out, nil
}
