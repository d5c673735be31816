package quickjs

import (
	"strings"
	"testing"
)

// TestSetSilent: a host function whose id's bit is set returns undefined
// without reaching Hooks.Call; clearing the mask brings the calls back;
// ids past 31 are never silent.
func TestSetSilent(t *testing.T) {
	_, inst, c := newTestContext(t)
	calls := map[uint32]int{}
	inst.Hooks.Call = func(ctx Context, argc, argv, id uint32) Value {
		calls[id]++
		v, err := inst.NewFloat64(ctx, float64(id))
		if err != nil {
			return 0
		}
		return v
	}
	caller, err := inst.Eval(c, `(function (a, b) { return [a(), a(), b()].map(String).join() })`, "t.js", EvalGlobal)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.FreeValue(c, caller)
	for _, tc := range []struct {
		mask  uint32
		a, b  uint32 // the two functions' ids
		want  string
		calls int // calls that reached Go
	}{
		{mask: 0, a: 3, b: 5, want: "3,3,5", calls: 3},
		{mask: 1 << 3, a: 3, b: 5, want: "undefined,undefined,5", calls: 1},
		{mask: 1<<3 | 1<<5, a: 3, b: 5, want: "undefined,undefined,undefined", calls: 0},
		{mask: 1 << 31, a: 31, b: 40, want: "undefined,undefined,40", calls: 1},
		{mask: ^uint32(0), a: 32, b: 63, want: "32,32,63", calls: 3},
		{mask: 0, a: 3, b: 5, want: "3,3,5", calls: 3},
	} {
		inst.SetSilent(tc.mask)
		a, err := inst.NewFunction(c, "a", tc.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := inst.NewFunction(c, "b", tc.b)
		if err != nil {
			t.Fatal(err)
		}
		clear(calls)
		res, err := inst.CallFunction(c, caller, a, b)
		inst.FreeValue(c, a)
		inst.FreeValue(c, b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := inst.GetString(c, res)
		inst.FreeValue(c, res)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, k := range calls {
			n += k
		}
		if got != tc.want || n != tc.calls {
			t.Errorf("mask %#x, ids %d %d: got %s with %d calls into Go, want %s with %d", tc.mask, tc.a, tc.b, got, n, tc.want, tc.calls)
		}
	}
}

// TestAddHostMaskNeedsACall: a module that never calls the import is
// refused, not rewritten.
func TestAddHostMaskNeedsACall(t *testing.T) {
	if _, _, err := addHostMask(tinyModule(), 0); err == nil || !strings.Contains(err.Error(), "nothing calls") {
		t.Fatalf("got %v", err)
	}
}
