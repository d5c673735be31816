package quickjs

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tetratelabs/wazero"
)

// tinyModule is a hand-assembled module shaped like the emscripten build in
// the ways the rewrites care about: it imports a function a.i (i32 → i32)
// and its memory as a.a, has a global, and its one function, spin, loops
// forever.
func tinyModule() []byte {
	sec := func(id byte, payload ...byte) []byte {
		return append([]byte{id, byte(len(payload))}, payload...)
	}
	var b []byte
	b = append(b, 0, 'a', 's', 'm', 1, 0, 0, 0)
	b = append(b, sec(1, 2, 0x60, 0, 0, 0x60, 1, 0x7f, 1, 0x7f)...) // types: () -> (), (i32) -> i32
	b = append(b, sec(2, 2,
		1, 'a', 1, 'i', 0x00, 1, // import a.i func type 1
		1, 'a', 1, 'a', 0x02, 0x01, 1, 2)...) // import a.a memory {1, 2}
	b = append(b, sec(3, 1, 0)...)                              // one function of type 0
	b = append(b, sec(6, 1, 0x7f, 0x01, 0x41, 0x00, 0x0b)...)   // global mut i32 = 0
	b = append(b, sec(7, 1, 4, 's', 'p', 'i', 'n', 0x00, 1)...) // export "spin" = func 1
	body := []byte{0, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b}       // loop br 0 end end
	b = append(b, sec(10, append([]byte{1, byte(len(body))}, body...)...)...)
	return b
}

func TestRewritesOnTinyModule(t *testing.T) {
	ctx := context.Background()
	w, mi, err := defineImportedMemory(tinyModule(), 4)
	if err != nil {
		t.Fatal(err)
	}
	if mi.module != "a" || mi.name != "a" || mi.min != 1 || mi.max != 2 {
		t.Errorf("got memory import %+v, want a.a {1, 2}", mi)
	}
	poll, err := funcImportIndex(w, "a", "i")
	if err != nil || poll != 0 {
		t.Fatalf("got poll index %d, %v; want 0", poll, err)
	}
	if w, err = addPolling(w, poll); err != nil {
		t.Fatal(err)
	}
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	var polls atomic.Int64
	stop := make(chan struct{})
	// The host module exports only the function: the memory import is gone.
	_, err = r.NewHostModuleBuilder("a").NewFunctionBuilder().
		WithFunc(func(arg int32) int32 {
			if arg != 0 {
				t.Errorf("poll called with %d, want 0", arg)
			}
			if polls.Add(1) == 3 {
				close(stop)
				panic("stopped")
			}
			return 7
		}).Export("i").Instantiate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := r.Instantiate(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mod.Memory().Definition().Min(), uint32(1); got != want {
		t.Errorf("got memory min %d pages, want %d", got, want)
	}
	if max, ok := mod.Memory().Definition().Max(); !ok || max != 4 {
		t.Errorf("got memory max %d (%v), want 4", max, ok)
	}
	// spin loops forever; the third poll (after 3 * pollEvery iterations)
	// panics, which must end the call.
	_, err = mod.ExportedFunction("spin").Call(ctx)
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Errorf("got %v, want the poll's panic", err)
	}
	<-stop
	if n := polls.Load(); n != 3 {
		t.Errorf("got %d polls, want 3", n)
	}
}

func TestRewriteRejectsUnexpectedShapes(t *testing.T) {
	tests := []struct {
		name string
		wasm []byte
		want string
	}{
		{"not wasm", []byte("hello world"), "not a version-1 wasm binary"},
		{"no memory import", append([]byte{0, 'a', 's', 'm', 1, 0, 0, 0}, 2, 1, 0), "imports no memory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := defineImportedMemory(tt.wasm, 4)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestParseGlueFailsLoudly(t *testing.T) {
	art := loadTestArtifact(t)
	glue := string(art.Glue)
	if _, err := parseGlue(glue); err != nil {
		t.Fatalf("the pinned glue: %v", err)
	}
	tests := []struct {
		name, old, new, want string
	}{
		{"import pattern gone", "c.callbacks.shouldInterrupt(", "c.callbacks.mustInterrupt(", "qts_host_interrupt_handler"},
		{"import object gone", "if(c.instantiateWasm)", "if(c.instantiate)", "import object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseGlue(strings.Replace(glue, tt.old, tt.new, 1))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

func TestABICheckRejectsUnknownImport(t *testing.T) {
	art := loadTestArtifact(t)
	a, err := parseGlue(string(art.Glue))
	if err != nil {
		t.Fatal(err)
	}
	for min, sem := range a.imports {
		if sem == "fd_write" {
			delete(a.imports, min) // as if the glue had not mentioned it
		}
	}
	w, _, err := defineImportedMemory(art.Wasm, 32768)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	err = a.check(cm.ImportedFunctions(), cm.ExportedFunctions())
	if err == nil || !strings.Contains(err.Error(), "not recognised") {
		t.Errorf("got %v, want an unrecognised-import error", err)
	}
}

func TestExportMutableGlobals(t *testing.T) {
	art := loadTestArtifact(t)
	_, names, err := exportMutableGlobals(art.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	// The stack pointer at least; NewRuntime compiles the result.
	if len(names) == 0 {
		t.Fatal("no mutable globals found")
	}
	t.Log(names)
}
