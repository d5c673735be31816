package quickjs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckWasmOpt: only wasm-opt of the pinned binaryen release derives
// the embedded wasm; another release, or none on PATH, is ErrWasmOpt.
func TestCheckWasmOpt(t *testing.T) {
	fake := func(version string) string {
		dir := t.TempDir()
		script := "#!/bin/sh\necho 'wasm-opt version " + version + "'\n"
		if err := os.WriteFile(filepath.Join(dir, "wasm-opt"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tt := range []struct {
		name, path string
		wantErr    bool
		wantMsg    string
	}{
		{"the pinned release", fake(WasmOptVersion), false, ""},
		{"another release", fake("116"), true, `"wasm-opt version 116"`},
		{"none on PATH", t.TempDir(), true, "wasm-opt --version"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PATH", tt.path)
			err := checkWasmOpt(context.Background())
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrWasmOpt) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("got %v, want ErrWasmOpt saying %s", err, tt.wantMsg)
			}
		})
	}
}

// TestOptimizeRefusesOtherInput: Optimize derives only from the pinned
// source wasm (the embedded, already derived one is not it).
func TestOptimizeRefusesOtherInput(t *testing.T) {
	art := loadTestArtifact(t)
	_, err := Optimize(context.Background(), art.Wasm)
	if err == nil || !strings.Contains(err.Error(), SourceWasmSHA256) {
		t.Errorf("got %v, want a sha256 mismatch naming %s", err, SourceWasmSHA256)
	}
}
