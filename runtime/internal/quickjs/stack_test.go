package quickjs

import (
	"strings"
	"testing"
)

// layoutModule is a module with the given global and data sections (raw
// payloads), enough for findStack.
func layoutModule(globals, data []byte) []byte {
	b := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	if globals != nil {
		b = appendSection(b, secGlobal, globals)
	}
	if data != nil {
		b = appendSection(b, secData, data)
	}
	return b
}

// mutI32 is a mutable i32 global initialised to v (v < 1<<20 fits the
// three-byte signed LEB128 written here).
func mutI32(v uint32) []byte {
	return []byte{0x7f, 0x01, 0x41, byte(v&0x7f | 0x80), byte(v>>7&0x7f | 0x80), byte(v >> 14 & 0x3f), 0x0b}
}

// activeData is one active data segment of n zero bytes at off.
func activeData(off uint32, n byte) []byte {
	seg := []byte{0x00, 0x41, byte(off&0x7f | 0x80), byte(off>>7&0x7f | 0x80), byte(off >> 14 & 0x3f), 0x0b, n}
	return append(seg, make([]byte, n)...)
}

func TestFindStack(t *testing.T) {
	const mem = 1 << 20
	one := func(parts ...[]byte) []byte {
		var p []byte
		for _, x := range parts {
			p = append(p, x...)
		}
		return append([]byte{byte(len(parts))}, p...)
	}
	for _, tc := range []struct {
		name          string
		globals, data []byte
		top, floor    uint32
		err           string
	}{
		{name: "the stack pointer above the data", globals: one(mutI32(600000)), data: one(activeData(1024, 100), activeData(5000, 10)),
			top: 600000, floor: 8192 + bssGuard},
		{name: "a constant global beside it", globals: one([]byte{0x7f, 0x00, 0x41, 0x05, 0x0b}, mutI32(600000)), data: one(activeData(1024, 1)),
			top: 600000, floor: 4096 + bssGuard},
		{name: "two mutable globals", globals: one(mutI32(600000), mutI32(700000)), err: "2 mutable globals"},
		{name: "no mutable global", globals: one([]byte{0x7f, 0x00, 0x41, 0x05, 0x0b}), err: "0 mutable globals"},
		{name: "the pointer inside the data's guard", globals: one(mutI32(69000)), data: one(activeData(1024, 1)), err: "outside"},
		{name: "the pointer past the initial memory", globals: one(mutI32(1<<20 + 4)), err: "outside"},
		{name: "passive data", globals: one(mutI32(600000)), data: []byte{1, 0x01, 1, 0}, err: "passive"},
		{name: "a mutable i64", globals: one([]byte{0x7e, 0x01, 0x42, 0x05, 0x0b}, mutI32(600000)), err: "2 mutable globals"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := findStack(layoutModule(tc.globals, tc.data), mem)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %+v, %v; want an error with %q", st, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.top != tc.top || st.floor != tc.floor {
				t.Errorf("got top %d floor %d, want %d %d", st.top, st.floor, tc.top, tc.floor)
			}
		})
	}
}

// TestFindStackInTheBuild: the pinned build's layout is found, and it is
// emscripten's (the stack pointer is the module's first global).
func TestFindStackInTheBuild(t *testing.T) {
	r := newTestRuntime(t)
	st := r.stack
	if st.global != snapshotGlobalPrefix+"0" || st.top <= st.floor || int64(st.top) > r.InitialMemory() {
		t.Fatalf("layout %+v", st)
	}
}
