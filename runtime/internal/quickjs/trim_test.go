package quickjs

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/tetratelabs/wazero"
)

// TestTrimQuickJS: each trim finds its code once in the pinned build (after
// the fixes), the trimmed interpreter calls neither JS_FreeValue nor
// js_poll_interrupts directly but through their fast paths, its opcode
// loop is the one loop the polling leaves alone, and a second trim fails.
func TestTrimQuickJS(t *testing.T) {
	art := loadTestArtifact(t)
	fixed, err := fixQuickJS(art.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	trimmed, err := trimQuickJS(fixed)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		old, new  []byte
		wantFound int
	}{
		{"opcode loop", stepDump, stepDumpTrim, 1},
		{"call entry", callDump, callDumpTrim, 1},
		{"JS_FreeValue", freeValue, freeValueTrim, 1},
	} {
		if n := bytes.Count(trimmed, c.old); n != 0 {
			t.Errorf("%s: the old code is still there %d times", c.name, n)
		}
		if n := bytes.Count(trimmed, c.new); n != c.wantFound {
			t.Errorf("%s: the new code is there %d times, want %d", c.name, n, c.wantFound)
		}
	}
	// Loops the polling skips: exactly the opcode loop.
	secs, err := splitSections(trimmed)
	if err != nil {
		t.Fatal(err)
	}
	skipped, loops := 0, 0
	for _, s := range secs {
		if s.id != secCode {
			continue
		}
		prevNop := false
		if _, err := editBodies(s.payload, 0, func(op byte, _ []byte) []byte {
			if op == 0x03 {
				loops++
				if prevNop {
					skipped++
				}
			}
			prevNop = op == 0x01
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if skipped != 1 {
		t.Errorf("%d of %d loops follow a nop (exempt from polling), want 1", skipped, loops)
	}
	if _, err := trimQuickJS(trimmed); err == nil {
		t.Error("trimming a trimmed module: no error, want the code not found")
	}
}

// fastPathModule is a hand-assembled module for inlineFastPath: callee (f1:
// i32 → i32, counts its calls in global 0 and returns x + 1) and caller
// (f2: i32 → i32, param and one local of its own, returns callee(x) +
// callee(x + 1)), exported as "caller" and "calls".
func fastPathModule() (wasm, calleeBody []byte) {
	sec := func(id byte, payload ...byte) []byte {
		return append(appendU32([]byte{id}, uint32(len(payload))), payload...)
	}
	calleeBody = []byte{0x00,
		0x23, 0x00, 0x41, 0x01, 0x6a, 0x24, 0x00, // calls++
		0x20, 0x00, 0x41, 0x01, 0x6a, 0x0b} // x + 1
	callerBody := []byte{0x01, 0x01, valI32, // one i32 local (index 1)
		0x20, 0x00, 0x10, 0x01, 0x21, 0x01, // l = callee(x)
		0x20, 0x00, 0x41, 0x01, 0x6a, 0x10, 0x01, // callee(x + 1)
		0x20, 0x01, 0x6a, 0x0b} // + l
	var b []byte
	b = append(b, 0, 'a', 's', 'm', 1, 0, 0, 0)
	b = append(b, sec(secType, 1, 0x60, 1, valI32, 1, valI32)...)
	b = append(b, sec(secImport, 1, 1, 'a', 1, 'i', 0x00, 0)...) // an imported function: indices start at 1
	b = append(b, sec(secFunction, 2, 0, 0)...)
	b = append(b, sec(secGlobal, 1, valI32, 0x01, 0x41, 0x00, 0x0b)...)
	b = append(b, sec(7, 2, 6, 'c', 'a', 'l', 'l', 'e', 'r', 0x00, 2, 5, 'c', 'a', 'l', 'l', 's', 0x03, 0)...)
	code := []byte{2}
	code = append(appendU32(code, uint32(len(calleeBody))), calleeBody...)
	code = append(appendU32(code, uint32(len(callerBody))), callerBody...)
	b = append(b, sec(secCode, code...)...)
	return b, calleeBody
}

// TestInlineFastPath: a fast path inlined at each call site gives the
// callee's results and calls it only outside its common case; the locals it
// adds come after the caller's own (which keep their meaning); a callee
// that is not the expected code is refused.
func TestInlineFastPath(t *testing.T) {
	wasm, calleeBody := fastPathModule()
	// x < 10: x + 1 here; else the callee. Locals: t.
	fast := func(l []uint32) []byte {
		tl := appendU32(nil, l[0])
		b := append(append([]byte{0x22}, tl...), 0x41, 0x0a, 0x48, 0x04, valI32) // local.tee t; t < 10; if (result i32)
		b = append(append(b, 0x20), tl...)
		b = append(b, 0x41, 0x01, 0x6a, 0x05) // t + 1 else
		b = append(append(b, 0x20), tl...)
		return append(b, 0x10, 0x01, 0x0b) // callee(t) end
	}
	inlined, n, err := inlineFastPath(wasm, 2, 1, calleeBody, []byte{valI32}, fast)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("replaced %d calls, want 2", n)
	}
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	if _, err := r.NewHostModuleBuilder("a").NewFunctionBuilder().WithFunc(func(int32) int32 { return 0 }).Export("i").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x, want   int32
		wantCalls uint64 // with the fast path
	}{
		{0, 3, 0},
		{8, 19, 0},
		{9, 21, 1}, // x + 1 = 10 is the callee's
		{10, 23, 2},
		{-5, -7, 0},
	} {
		for k, w := range [][]byte{wasm, inlined} {
			mod, err := r.InstantiateWithConfig(ctx, w, wazero.NewModuleConfig().WithName(fmt.Sprintf("m%d-%d", c.x, k)))
			if err != nil {
				t.Fatal(err)
			}
			res, err := mod.ExportedFunction("caller").Call(ctx, uint64(uint32(c.x)))
			if err != nil {
				t.Fatal(err)
			}
			if got := int32(res[0]); got != c.want {
				t.Errorf("module %d: caller(%d) = %d, want %d", k, c.x, got, c.want)
			}
			calls := mod.ExportedGlobal("calls").Get()
			if want := map[bool]uint64{false: 2, true: c.wantCalls}[k == 1]; calls != want {
				t.Errorf("module %d: caller(%d) called the callee %d times, want %d", k, c.x, calls, want)
			}
			mod.Close(ctx)
		}
	}
	other := append([]byte(nil), calleeBody...)
	other[len(other)-3] = 0x02 // x + 2
	if _, _, err := inlineFastPath(wasm, 2, 1, other, []byte{valI32}, fast); err == nil {
		t.Error("a callee that is not the expected code: no error")
	}
	if _, _, err := inlineFastPath(wasm, 1, 2, calleeBody, []byte{valI32}, fast); err == nil {
		t.Error("a caller that does not call the callee: no error")
	}
}

// TestUnpolledLoop: instrumentLoops leaves a loop right after a nop alone
// and instruments the others.
func TestUnpolledLoop(t *testing.T) {
	body := []byte{0x00,
		0x01, 0x03, 0x40, 0x0b, // nop; loop end: exempt
		0x03, 0x40, 0x0b, // loop end
		0x01, 0x41, 0x00, 0x1a, 0x03, 0x40, 0x0b, // nop; i32.const 0; drop; loop end
		0x0b}
	code := append(appendU32([]byte{1}, uint32(len(body))), body...)
	out, err := instrumentLoops(code, []byte{0x01, 0x01})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0x00,
		0x01, 0x03, 0x40, 0x0b,
		0x03, 0x40, 0x01, 0x01, 0x0b,
		0x01, 0x41, 0x00, 0x1a, 0x03, 0x40, 0x01, 0x01, 0x0b,
		0x0b}
	if got := out[2:]; !bytes.Equal(got, want) {
		t.Errorf("got % x, want % x", got, want)
	}
}

// TestFreeValueFastPath: with JS_FreeValue's fast path in the interpreter,
// values are still freed when their last reference goes (a loop that makes
// and drops 300,000 objects, strings and closures grows the memory by less
// than 2 MiB: 7 MiB if the last reference never frees) and kept while
// referenced.
func TestFreeValueFastPath(t *testing.T) {
	_, inst, c := newTestContext(t)
	before := inst.MemorySize()
	const prog = `(function () {
  var keep = [], s = 0;
  for (var i = 0; i < 300000; i++) {
    var o = {a: [i, i + 1], b: "k" + i, f: function () { return i; }};
    if (i % 1000 === 0) keep.push(o);
    s += o.a[1] - o.a[0] + o.b.length - ("k" + i).length;
  }
  return s + ":" + keep.length + ":" + keep[299].b + ":" + keep[299].a[1];
})()`
	v, err := inst.Eval(c, prog, "t.js", EvalGlobal)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := inst.Exception(c, v); e != 0 {
		s, _ := inst.GetString(c, e)
		t.Fatalf("exception: %s", s)
	}
	got, err := inst.GetString(c, v)
	if err != nil {
		t.Fatal(err)
	}
	if want := "300000:300:k299000:299001"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	inst.FreeValue(c, v)
	if grew := inst.MemorySize() - before; grew > 2<<20 {
		t.Errorf("memory grew by %d bytes over the loop: values are not freed", grew)
	}
}
