package quickjs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newTestRuntime returns a Runtime on the fetched artifact, skipping the test
// when the artifact is missing (failing instead under CODEMODE_REQUIRE_WAZERO=1).
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

// loadTestArtifact loads the artifact, skipping the test when it is missing
// (failing instead under CODEMODE_REQUIRE_WAZERO=1, as CI sets).
func loadTestArtifact(t testing.TB) *Artifact {
	t.Helper()
	art, err := LoadArtifact("")
	if err != nil {
		if os.Getenv("CODEMODE_REQUIRE_WAZERO") == "1" || !errors.Is(err, ErrArtifactMissing) {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return art
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
