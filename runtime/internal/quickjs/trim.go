package quickjs

import (
	"bytes"
	"fmt"
)

// Trims of the pinned build's hot paths, applied at load time after the
// fixes (fix.go), with the same rule: the build is pinned by sha256, each
// trim finds exactly the code it replaces, or the load fails.
//
// Why: the npm release build compiles QuickJS-ng without NDEBUG, and
// QuickJS-ng then also defines ENABLE_DUMPS: the bytecode interpreter reads
// a dump flag of the runtime before every opcode (two loads and a branch
// to a printer nobody can turn on: the flags are set by JS_SetDumpFlags,
// which nothing here calls). And JS_FreeValue, an inline function in
// QuickJS but an exported one in QuickJS-ng, is a call that makes a second
// call (JS_FreeValueRT, with a C stack frame) even for a value without a
// reference count or one whose count stays above zero: four of them per
// JavaScript call of a native function. Counted by valgrind (instructions
// per operation, docs/benchmarks.md "Trimming the interpreter's hot path"),
// these were a fifth of a native call.

// stepDump is the head of JS_CallInternal's opcode loop (function 231 of
// the pinned build), QuickJS-ng 0.12, with its first statement:
//
//	for (;;) {
//	    ...
//	    if (check_dump_flag(ctx->rt, JS_DUMP_BYTECODE_STEP))
//	        dump_single_byte_code(ctx, pc, b, 0);
//
// The check becomes no-ops (free: wazero compiles nop to nothing), and one
// of them moves before the loop, which exempts the loop from addPolling's
// countdown (instrumentLoops): QuickJS polls its interrupt handler, the
// same import, from the opcodes that jump back or call (js_poll_interrupts,
// every 10,000), and a run of opcodes without one is as long as the
// program's bytecode, which the code size limit bounds. The countdown cost
// the opcode loop ~5 instructions per opcode.
var stepDump = []byte{
	0x03, 0x40, // loop
	0x20, 0x15, 0x21, 0x06, 0x20, 0x13, 0x21, 0x11, // two local moves
	0x20, 0x12, 0x28, 0x02, 0x10, // ctx->rt
	0x2d, 0x00, 0xf1, 0x01, 0x41, 0x80, 0x01, 0x71, // dump flags & JS_DUMP_BYTECODE_STEP
	0x04, 0x40, // if
	0x20, 0x12, 0x20, 0x06, 0x20, 0x1c, 0x41, 0x00, 0x10, 0xa6, 0x06, // dump_single_byte_code(ctx, pc, b, 0)
	0x0b, // end
}

var stepDumpTrim = append(append([]byte{0x01}, stepDump[:10]...), nops(len(stepDump)-11)...)

// callDump is the same check at JS_CallInternal's entry, for a bytecode
// function (it prints the function's name):
//
//	ctx = b->realm;                               // kept: used after
//	if (!check_dump_flag(ctx->rt, JS_DUMP_BYTECODE_STEP)) goto skip;
//	print_func_name(...); goto skip;
//
// The test becomes drop; br (to the same label); the call after it is dead.
var callDump = []byte{
	0x20, 0x1c, 0x28, 0x02, 0x38, 0x22, 0x12, // ctx = b->realm (local.tee)
	0x28, 0x02, 0x10, 0x2d, 0x00, 0xf1, 0x01, 0x41, 0x80, 0x01, 0x71, 0x45, // !(ctx->rt dump flags & STEP)
	0x0d, 0x01, // br_if 1
}

var callDumpTrim = append(append(append([]byte(nil), callDump[:7]...),
	0x1a, 0x0c, 0x01), // drop; br 1
	nops(len(callDump)-10)...)

// freeValue is JS_FreeValue (function 0 of the pinned build):
//
//	void JS_FreeValue(JSContext *ctx, JSValue v) { JS_FreeValueRT(ctx->rt, v); }
var freeValue = []byte{
	0x00,                         // no locals
	0x20, 0x00, 0x28, 0x02, 0x10, // ctx->rt
	0x20, 0x01, // v
	0x10, 0x26, // call JS_FreeValueRT (function 18)
	0x0b,
}

// freeValueTrim does JS_FreeValueRT's common cases itself, as QuickJS's
// inline JS_FreeValue does, and calls it for the rest (a count going to
// zero: it decrements and frees):
//
//	if (JS_VALUE_HAS_REF_COUNT(v)) {     // v >= (uint64)JS_TAG_FIRST << 32, as JS_FreeValueRT tests
//	    p = JS_VALUE_GET_PTR(v);
//	    if (p->ref_count > 1) { p->ref_count--; return; }
//	    JS_FreeValueRT(ctx->rt, v);
//	}
var freeValueTrim = func() []byte {
	b := []byte{
		0x01, 0x02, valI32, // 2 i32 locals: p, count
		0x02, 0x40, // block
		0x20, 0x01, 0x42, // local.get v; i64.const
	}
	b = appendS64(b, -9<<32)
	return append(b,
		0x54, 0x0d, 0x00, // i64.lt_u; br_if 0 (no reference count)
		0x20, 0x01, 0xa7, 0x22, 0x02, // p = (i32)v
		0x28, 0x02, 0x00, 0x22, 0x03, // count = p->ref_count
		0x41, 0x01, 0x4a, 0x04, 0x40, // if (count > 1)
		0x20, 0x02, 0x20, 0x03, 0x41, 0x01, 0x6b, 0x36, 0x02, 0x00, // p->ref_count = count - 1
		0x0c, 0x01, // br 1 (return)
		0x0b,                         // end
		0x20, 0x00, 0x28, 0x02, 0x10, // ctx->rt
		0x20, 0x01, 0x10, 0x26, // JS_FreeValueRT(ctx->rt, v)
		0x0b, 0x0b, // end block; end
	)
}()

// Function indices (imports first) in the pinned build.
const (
	fnJSFreeValue      = 20  // JS_FreeValue
	fnJSCallInternal   = 251 // JS_CallInternal: the bytecode interpreter
	fnJSPollInterrupts = 147 // js_poll_interrupts
)

// pollInterrupts is js_poll_interrupts (its body), QuickJS-ng 0.12:
//
//	if (unlikely(--ctx->interrupt_counter <= 0)) {
//	    ctx->interrupt_counter = JS_INTERRUPT_COUNTER_INIT;
//	    if (rt->interrupt_handler && rt->interrupt_handler(rt, rt->interrupt_opaque)) {
//	        JS_ThrowInterrupted(ctx); return -1;
//	    }
//	}
//	return 0;
var pollInterrupts = []byte{
	0x01, 0x03, valI32, // 3 i32 locals
	0x20, 0x00, 0x20, 0x00, 0x28, 0x02, 0xa0, 0x02, 0x22, 0x01, 0x41, 0x01, 0x6b, 0x36, 0x02, 0xa0, 0x02, // ctx->interrupt_counter = (old = ctx->interrupt_counter) - 1
	0x20, 0x01, 0x41, 0x01, 0x4c, 0x04, valI32, // if (old <= 1)
	0x41, 0x00, 0x21, 0x01, 0x20, 0x00, 0x41, 0x90, 0xce, 0x00, 0x36, 0x02, 0xa0, 0x02, // ctx->interrupt_counter = 10000
	0x02, 0x40, 0x20, 0x00, 0x28, 0x02, 0x10, 0x22, 0x02, 0x28, 0x02, 0xa0, 0x01, 0x22, 0x03, 0x45, 0x0d, 0x00, // if (rt->interrupt_handler
	0x20, 0x02, 0x20, 0x02, 0x28, 0x02, 0xa4, 0x01, 0x20, 0x03, 0x11, 0x03, 0x00, 0x45, 0x0d, 0x00, //  && handler(rt, opaque))
	0x20, 0x00, 0x10, 0xf7, 0x03, 0x41, 0x7f, 0x21, 0x01, 0x0b, // JS_ThrowInterrupted(ctx), -1
	0x20, 0x01, 0x05, 0x41, 0x00, 0x0b, 0x0b, // else 0
}

// pollInterruptsFast replaces a call of js_poll_interrupts (ctx on the
// stack; locals c, n: i32):
//
//	if ((n = c->interrupt_counter) > 1) { c->interrupt_counter = n - 1; 0 } else js_poll_interrupts(c)
func pollInterruptsFast(l []uint32) []byte {
	c, n := appendU32(nil, l[0]), appendU32(nil, l[1])
	var b []byte
	b = append(append(b, 0x22), c...)                         // local.tee c
	b = append(append(b, 0x28, 0x02, 0xa0, 0x02, 0x22), n...) // n = c->interrupt_counter
	b = append(b, 0x41, 0x01, 0x4a, 0x04, valI32)             // if (n > 1) (result i32)
	b = append(append(append(append(b, 0x20), c...), 0x20), n...)
	b = append(b, 0x41, 0x01, 0x6b, 0x36, 0x02, 0xa0, 0x02) // c->interrupt_counter = n - 1
	b = append(b, 0x41, 0x00, 0x05)                         // 0 else
	b = append(append(b, 0x20), c...)
	b = append(append(b, 0x10), appendU32(nil, fnJSPollInterrupts)...)
	return append(b, 0x0b)
}

// freeValueFast replaces a call of JS_FreeValue (ctx, v on the stack;
// locals c: i32, v: i64, p, n: i32) with freeValueTrim's fast path:
//
//	if (v has a count) { if ((n = p->ref_count) > 1) p->ref_count = n - 1; else JS_FreeValue(c, v); }
func freeValueFast(l []uint32) []byte {
	c, v, p, n := appendU32(nil, l[0]), appendU32(nil, l[1]), appendU32(nil, l[2]), appendU32(nil, l[3])
	var b []byte
	b = append(append(append(append(b, 0x21), v...), 0x21), c...) // local.set v; local.set c
	b = append(append(append(b, 0x02, 0x40, 0x20), v...), 0x42)   // block; local.get v; i64.const
	b = appendS64(b, -9<<32)
	b = append(b, 0x54, 0x0d, 0x00) // i64.lt_u; br_if 0 (no count)
	b = append(append(append(b, 0x20), v...), 0xa7, 0x22)
	b = append(append(b, p...), 0x28, 0x02, 0x00, 0x22)           // p = (i32)v; p->ref_count
	b = append(append(b, n...), 0x41, 0x01, 0x4a, 0x04, 0x40)     // if ((n = …) > 1)
	b = append(append(append(append(b, 0x20), p...), 0x20), n...) //
	b = append(b, 0x41, 0x01, 0x6b, 0x36, 0x02, 0x00, 0x05)       // p->ref_count = n - 1 else
	b = append(append(append(append(b, 0x20), c...), 0x20), v...) //
	b = append(append(b, 0x10), appendU32(nil, fnJSFreeValue)...) // JS_FreeValue(c, v)
	return append(b, 0x0b, 0x0b)                                  // end if; end block
}

// trimQuickJS applies the trims above: the patches (see patchCode), then
// the interpreter's calls of JS_FreeValue and js_poll_interrupts get their
// fast paths inline (see inlineFastPath).
func trimQuickJS(wasm []byte) ([]byte, error) {
	wasm, err := patchCode(wasm, []codePatch{
		{"the opcode loop's dump check", stepDump, stepDumpTrim, true},
		{"JS_CallInternal's dump check", callDump, callDumpTrim, true},
		{"JS_FreeValue's fast path", freeValue, freeValueTrim, false},
	})
	if err != nil {
		return nil, err
	}
	for _, in := range []struct {
		name         string
		callee       uint32
		body, locals []byte
		fast         func([]uint32) []byte
		calls        int
	}{
		{"JS_FreeValue", fnJSFreeValue, freeValueTrim, []byte{valI32, valI64, valI32, valI32}, freeValueFast, 122},
		{"js_poll_interrupts", fnJSPollInterrupts, pollInterrupts, []byte{valI32, valI32}, pollInterruptsFast, 10},
	} {
		var n int
		if wasm, n, err = inlineFastPath(wasm, fnJSCallInternal, in.callee, in.body, in.locals, in.fast); err != nil {
			return nil, fmt.Errorf("inlining %s: %w", in.name, err)
		}
		if n != in.calls {
			return nil, fmt.Errorf("inlining %s: the interpreter calls it %d times, want %d", in.name, n, in.calls)
		}
	}
	return wasm, nil
}

func nops(n int) []byte { return bytes.Repeat([]byte{0x01}, n) }

// appendS64 appends v as a signed LEB128.
func appendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
