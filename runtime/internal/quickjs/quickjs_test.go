package quickjs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode/codemode/runtime/internal/quickjs/embed"
)

// newTestRuntime returns a Runtime on the artifact (the embedded copy, or
// $CODEMODE_QUICKJS_DIR's).
func newTestRuntime(t testing.TB) *Runtime {
	t.Helper()
	art := loadTestArtifact(t)
	r, err := NewRuntime(context.Background(), RuntimeOptions{Artifact: art, CacheDir: cacheDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(context.Background()) })
	return r
}

// loadTestArtifact loads the artifact the engine would load.
func loadTestArtifact(t testing.TB) *Artifact {
	t.Helper()
	art, err := LoadArtifact("")
	if err != nil {
		t.Fatal(err)
	}
	return art
}

// TestEmbeddedArtifact: with no override the embedded copy loads, its
// PROVENANCE names the pins of this package, and a directory written from
// it loads the same bytes (the $CODEMODE_QUICKJS_DIR path).
func TestEmbeddedArtifact(t *testing.T) {
	t.Setenv(DirEnv, "")
	art, err := LoadArtifact("")
	if err != nil {
		t.Fatal(err)
	}
	if art.Dir != Embedded {
		t.Errorf("Dir: got %q, want %q", art.Dir, Embedded)
	}
	prov := map[string]string{}
	for _, line := range strings.Split(embed.Provenance, "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(line, "#") {
			prov[k] = v
		}
	}
	for _, tt := range []struct{ key, want string }{
		{"package", PackageName},
		{"version", PackageVersion},
		{"integrity", PackageIntegrity},
		{"source-wasm", fmt.Sprintf("package/dist/%s, 528551 bytes, sha256 %s", WasmFile, SourceWasmSHA256)},
		{"wasm-opt", fmt.Sprintf("binaryen %s: wasm-opt source-wasm %s -o %s", WasmOptVersion, WasmOptFlags, WasmFile)},
		{WasmFile, fmt.Sprintf("package/dist/%s after wasm-opt, %d bytes, sha256 %s", WasmFile, len(embed.Wasm), WasmSHA256)},
		{GlueFile, fmt.Sprintf("package/dist/%s, %d bytes, sha256 %s", GlueFile, len(embed.Glue), GlueSHA256)},
		{LicenseFile, fmt.Sprintf("package/%s, %d bytes, sha256 %s", LicenseFile, len(embed.License), sha256Hex([]byte(embed.License)))},
	} {
		if got := prov[tt.key]; got != tt.want {
			t.Errorf("PROVENANCE %s: got %q, want %q", tt.key, got, tt.want)
		}
	}
	if !strings.HasPrefix(prov["license"], "MIT") || !strings.Contains(embed.License, "quickjs-ng:") || !strings.Contains(embed.License, "Fabrice Bellard") {
		t.Errorf("license: PROVENANCE says %q; LICENSE must cover QuickJS-NG", prov["license"])
	}
	if diffs := CompareEmbedded(Files{WasmFile: art.Wasm, GlueFile: art.Glue, LicenseFile: []byte(embed.License)}); len(diffs) > 0 {
		t.Errorf("CompareEmbedded of the embedded copy: %v", diffs)
	}

	dir := t.TempDir()
	if err := (Files{WasmFile: embed.Wasm, GlueFile: embed.Glue, LicenseFile: []byte(embed.License)}).WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv(DirEnv, dir)
	fromDir, err := LoadArtifact("")
	if err != nil || fromDir.Dir != dir || !bytes.Equal(fromDir.Wasm, art.Wasm) {
		t.Errorf("from %s=%s: got %v, %v", DirEnv, dir, fromDir, err)
	}
}

func TestMissingArtifactNamesTheCommand(t *testing.T) {
	_, err := LoadArtifact(t.TempDir())
	if !errors.Is(err, ErrArtifactMissing) || !strings.Contains(err.Error(), FetchCommand) {
		t.Errorf("got %v, want ErrArtifactMissing naming %q", err, FetchCommand)
	}
}

func TestCorruptArtifactIsRejected(t *testing.T) {
	art := loadTestArtifact(t)
	dir := t.TempDir()
	bad := append([]byte(nil), art.Wasm...)
	bad[len(bad)-1] ^= 1
	for name, b := range map[string][]byte{WasmFile: bad, GlueFile: art.Glue} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadArtifact(dir)
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("got %v, want a sha256 mismatch", err)
	}
}

// newTestContext is a runtime, an instance and a context on it, closed with
// the test.
func newTestContext(t testing.TB) (*Runtime, *Instance, Context) {
	t.Helper()
	r := newTestRuntime(t)
	inst, err := r.NewInstance(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	c, err := inst.NewContext()
	if err != nil {
		t.Fatal(err)
	}
	return r, inst, c
}

func cacheDir(t testing.TB) string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return d + "/codemode/wazero-test"
}

func TestEvalString(t *testing.T) {
	_, inst, c := newTestContext(t)
	v, err := inst.Eval(c, `JSON.stringify({a: 1 + 1, d: typeof Date.now()})`, "t.js", EvalGlobal)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := inst.Exception(c, v); e != 0 {
		s, _ := inst.GetString(c, e)
		t.Fatalf("exception: %s", s)
	}
	s, err := inst.GetString(c, v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":2,"d":"number"}`; s != want {
		t.Errorf("got %s, want %s", s, want)
	}
	inst.FreeValue(c, v)
	if err := inst.FreeContext(c); err != nil {
		t.Fatal(err)
	}
}

// TestDispatcher: calls go through one api.Function per nesting level (a
// host function calling back in gets the next), and a number past the
// exports traps.
func TestDispatcher(t *testing.T) {
	_, inst, c := newTestContext(t)
	v, err := inst.NewFloat64(c, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	if f, err := inst.GetFloat64(c, v); err != nil || f != 2.5 {
		t.Fatalf("GetFloat64: %v %v", f, err)
	}
	inst.FreeValue(c, v)
	if len(inst.disp) != 1 {
		t.Errorf("%d dispatchers bound by top-level calls, want 1", len(inst.disp))
	}
	st := make([]uint64, dispatchArgs+1)
	st[0] = numFns
	if err := inst.disp[0].CallWithStack(inst.ctx, st); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("dispatch of export %d: %v, want the unreachable trap", numFns, err)
	}
}

// evalString evaluates code in c and returns its value as a string; an
// exception fails the test with its message.
func evalString(t *testing.T, inst *Instance, c Context, code string) string {
	t.Helper()
	v, err := inst.Eval(c, code, "t.js", EvalGlobal)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.FreeValue(c, v)
	if exc, err := inst.Exception(c, v); err != nil || exc != 0 {
		msg, _ := inst.GetString(c, exc)
		t.Fatalf("%.200s threw %s (%v)", code, msg, err)
	}
	s, err := inst.GetString(c, v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
