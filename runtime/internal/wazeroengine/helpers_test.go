package wazeroengine

import (
	"errors"
	"os"
	"testing"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/quickjs"
)

// requireEnv makes a missing artifact fail the tests instead of skipping
// them; CI sets it.
const requireEnv = "CODEMODE_REQUIRE_WAZERO"

// newTestEngine returns an engine closed at the end of the test. Without
// the artifact the test is skipped with the message naming the fetch
// command, or fails when CODEMODE_REQUIRE_WAZERO=1.
func newTestEngine(t testing.TB, opts Options) *engine.Base {
	t.Helper()
	return newTestEngineWith(t, opts, nil)
}

// newTestEngineWith is newTestEngine with the filler reporting each pool
// change on filled.
func newTestEngineWith(t testing.TB, opts Options, filled chan<- struct{}) *engine.Base {
	t.Helper()
	e, err := newStopped(opts)
	if err != nil {
		if errors.Is(err, quickjs.ErrArtifactMissing) && os.Getenv(requireEnv) != "1" {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	e.Filled = filled
	e.Start()
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}
