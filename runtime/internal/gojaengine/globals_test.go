package gojaengine

import (
	"context"
	"slices"
	"testing"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
)

// TestGlobalsFollowEveryChange: Globals returns its last list again when
// goja's GlobalKeysVersion says the global object's keys did not change;
// every way a program adds, removes or hides a global must change it.
func TestGlobalsFollowEveryChange(t *testing.T) {
	eng, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, c := range []struct {
		src  string
		want []string
	}{
		{`return 1 + 1`, nil},
		{`globalThis.a = 1`, []string{"a"}},
		{`return 1 + 1`, []string{"a"}},
		{`let b = 2; const c = 3`, []string{"a", "b", "c"}},
		{`delete globalThis.a`, []string{"b", "c"}},
		{`Object.defineProperty(globalThis, "d", { value: 1, enumerable: true, configurable: true })`, []string{"b", "c", "d"}},
		{`Object.defineProperty(globalThis, "d", { enumerable: false })`, []string{"b", "c"}},
		{`globalThis[7] = 1`, []string{"7", "b", "c"}},
		{`Reflect.set(globalThis, "e", 1); Object.assign(globalThis, { f: 1 })`, []string{"7", "b", "c", "e", "f"}},
		{`(0, eval)("var g = 1; function h() {}")`, []string{"7", "b", "c", "e", "f", "g", "h"}},
		{`delete globalThis[7]; delete globalThis.e; delete globalThis.f; delete globalThis.g; delete globalThis.h`, []string{"b", "c"}},
		{`return typeof fetch + typeof setTimeout`, []string{"b", "c"}},
	} {
		if o := enginetest.Exec(t, eng, c.src, enginetest.ExecOptions{Env: env}); o.Err != nil {
			t.Fatalf("%s: %v", c.src, o.Err)
		}
		for range 2 {
			got := env.Globals()
			for _, n := range c.want {
				if !slices.Contains(got, n) {
					t.Errorf("after %s: globals %v, want %v", c.src, got, c.want)
				}
			}
			for _, n := range got {
				if !slices.Contains(c.want, n) {
					t.Errorf("after %s: globals %v, want %v", c.src, got, c.want)
				}
			}
		}
	}
}
