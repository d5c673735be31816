package quickjs

import (
	"bytes"
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

// deleteLastElement is the fast-array case of delete_property as the
// pinned build compiles it (function 548), QuickJS-ng 0.12:
//
//	if (JS_AtomIsArrayIndex(ctx, &idx, atom) && idx < p->u.array.count) {
//	    if (class_id is ARRAY, ARGUMENTS or MAPPED_ARGUMENTS) {
//	        if (idx == p->u.array.count - 1) {   // the special case
//	            free the element (its var_ref for mapped arguments)
//	            p->u.array.count = idx;
//
// Deleting the last element of a fast array shortened the fast part
// without leaving fast mode, so the array's length and its count of
// elements disagreed and later operations (push, a GC, the mapped
// arguments' var_refs) used the freed slot: `var a = [{}, {}]; delete
// a[1]; a.push({})` traps (TestDeleteLastElement). Upstream fix: QuickJS-ng
// commit 1b0b660 ("Fix UAF in fast array delete", issue 1430, in 0.14.0)
// removes the special case, so such a delete converts the array to a
// normal one as any other index does. Here the comparison becomes
// idx == p->u.array.count - 0, false after idx < count: the special case
// is never taken (one byte; the dead code stays).
var deleteLastElement = []byte{
	0x20, 0x09, 0x28, 0x02, 0x08, 0x22, 0x03, // idx = ...
	0x20, 0x01, 0x28, 0x02, 0x28, 0x22, 0x06, 0x4f, 0x0d, 0x07, // if (idx >= (count = p->u.array.count)) break
	0x41, 0x00, 0x21, 0x05, // ret = 0
	0x20, 0x01, 0x2f, 0x01, 0x06, 0x22, 0x04, // class_id = p->class_id
	0x41, 0x09, 0x4b, 0x41, 0x01, 0x20, 0x04, 0x74, 0x41, 0x84, 0x06, 0x71, 0x45, 0x72, 0x0d, 0x07, // not ARRAY/ARGUMENTS/MAPPED: break
	0x20, 0x06, 0x41, 0x01, 0x6b, 0x20, 0x03, 0x46, 0x04, 0x40, // if (count - 1 == idx)
	0x02, 0x40, 0x20, 0x04, 0x41, 0x09, 0x46, 0x04, 0x40, // if (class_id == MAPPED_ARGUMENTS)
	0x20, 0x00, 0x28, 0x02, 0x10, 0x20, 0x01, 0x28, 0x02, 0x24, 0x20, 0x03, 0x41, 0x02, 0x74, 0x6a, 0x28, 0x02, 0x00, 0x10, 0xdb, 0x01, // free_var_ref(rt, var_refs[idx])
	0x0c, 0x01, // break
}

// deleteLastElementFix: count - 1 becomes count - 0.
var deleteLastElementFix = func() []byte {
	cmp := []byte{0x20, 0x06, 0x41, 0x01, 0x6b, 0x20, 0x03, 0x46}
	if bytes.Count(deleteLastElement, cmp) != 1 {
		panic("quickjs: deleteLastElement lost its comparison")
	}
	return bytes.Replace(deleteLastElement, cmp, []byte{0x20, 0x06, 0x41, 0x00, 0x6b, 0x20, 0x03, 0x46}, 1)
}()

// codePatch replaces code of the pinned build: a whole function body
// (after its size) equal to old, or, if partial, a window of code with
// bytes of the same length (so no branch or size changes).
type codePatch struct {
	name     string
	old, new []byte
	partial  bool
}

// fixQuickJS applies the fixes above to the module's code section. A
// whole-body fix must match exactly one function body; a partial one (the
// body is too large to carry here) replaces a window of code that occurs
// exactly once in the whole code section.
func fixQuickJS(wasm []byte) ([]byte, error) {
	return patchCode(wasm, []codePatch{
		{"js_mapped_arguments_mark (QuickJS-ng 3973106)", mappedArgumentsMark, mappedArgumentsMarkFix, false},
		{"delete_property (QuickJS-ng 1b0b660)", deleteLastElement, deleteLastElementFix, true},
	})
}

// patchCode applies patches to the module's code section; each must find
// its code exactly once, or the module is refused.
func patchCode(wasm []byte, patches []codePatch) ([]byte, error) {
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	out := append([]byte(nil), wasm[:8]...)
	found := make([]int, len(patches))
	for _, s := range secs {
		if s.id != secCode {
			out = append(out, wasm[s.start:s.end]...)
			continue
		}
		code, err := forBodies(s.payload, 0, func(_ uint32, body []byte) ([]byte, error) {
			for k, fx := range patches {
				switch {
				case !fx.partial && bytes.Equal(body, fx.old):
					body = fx.new
					found[k]++
				case fx.partial && len(fx.old) == len(fx.new):
					if c := bytes.Count(body, fx.old); c > 0 {
						body = bytes.Replace(body, fx.old, fx.new, -1)
						found[k] += c
					}
				}
			}
			return body, nil
		})
		if err != nil {
			return nil, fmt.Errorf("code section: %w", err)
		}
		out = appendSection(out, secCode, code)
	}
	for k, fx := range patches {
		if found[k] != 1 {
			return nil, fmt.Errorf("patch %s: found the code to replace %d times, want once", fx.name, found[k])
		}
	}
	return out, nil
}
