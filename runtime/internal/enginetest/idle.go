package enginetest

import (
	"context"
	"runtime"
	"testing"

	"github.com/codemode/codemode/runtime/internal/engine"
)

// IdleSize is the live Go heap that one idle persistent environment holds
// after a trivial program (`return 1 + 1`), averaged over n of them: what
// each agent's environment costs while it waits for its next run. eng
// should have no warm pool (its filler would add VMs of its own).
func IdleSize(t testing.TB, eng engine.Engine, n int) int64 {
	t.Helper()
	envs := make([]engine.Env, 0, n)
	defer func() {
		for _, e := range envs {
			e.Close()
		}
	}()
	heap := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	// One first, so that what every environment shares (compiled
	// programs, caches) is not counted.
	warm, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	Exec(t, eng, "return 1 + 1", ExecOptions{Env: warm})
	envs = append(envs, warm)
	before := heap()
	for range n {
		e, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
		if err != nil {
			t.Fatal(err)
		}
		envs = append(envs, e)
		if o := Exec(t, eng, "return 1 + 1", ExecOptions{Env: e}); o.Err != nil || string(o.Value) != "2" {
			t.Fatalf("got %s, %v", o.Value, o.Err)
		}
	}
	return (heap() - before) / int64(n)
}
