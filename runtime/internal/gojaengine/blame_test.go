package gojaengine

import (
	"context"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/source"
	"github.com/codemode/codemode/tools/errs"
)

// runProgram runs code in a fresh per-call environment of eng.
func runProgram(t *testing.T, eng engine.Engine, code string, timeout time.Duration) engine.Result {
	t.Helper()
	s, err := source.Prepare(code, source.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env, err := eng.NewEnv(context.Background(), engine.EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return env.Run(ctx, &engine.Job{Script: s.JS, Name: "program.js", LineOffset: s.LineOffset, Deadline: time.Now().Add(timeout)})
}

// TestAbandonedRunTakesTheBlame: a run that timed out inside a built-in
// that keeps allocating (a global replace collects every match before it
// builds its result) is abandoned, and its VM grows the heap for seconds
// more. Runs that start meanwhile see the heap grow past their budget; the
// guard must keep blaming the abandoned run (killed already: nobody else
// is killed) instead of passing its MEMORY_LIMIT to an innocent run in
// another environment, as it used to (5 of 5 tries in issue 18).
func TestAbandonedRunTakesTheBlame(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of a runaway built-in")
	}
	eng := newTestEngine(t, Options{MemoryLimit: 32 << 20, Grace: 20 * time.Millisecond, PoolSize: -1})
	d := eng.(*engine.Base).Driver().(*driver)
	hog := runProgram(t, eng, `const s = 'a'.repeat(1 << 21); return s.replace(/a/g, 'bb').length`, 100*time.Millisecond)
	if errs.CodeOf(hog.Err) != errs.CodeTimeout {
		t.Skipf("the hog did not time out in its built-in (%v): nothing to blame", hog.Err)
	}
	// While the abandoned VM still allocates, innocent programs run.
	innocent, killed := 0, 0
	for d.guard.active() > 0 {
		res := runProgram(t, eng, `let x = 0; for (let i = 0; i < 300000; i++) x += i % 7; return x`, 10*time.Second)
		innocent++
		if errs.CodeOf(res.Err) == errs.CodeMemoryLimit {
			killed++
			t.Errorf("innocent run %d got the abandoned run's MEMORY_LIMIT: %v", innocent, res.Err)
		} else if res.Err != nil {
			t.Fatalf("innocent run %d: %v", innocent, res.Err)
		}
	}
	t.Logf("%d innocent runs beside the abandoned one, %d killed", innocent, killed)
	if innocent == 0 {
		t.Skip("the abandoned run ended before any innocent one started")
	}
}
