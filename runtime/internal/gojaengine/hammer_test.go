package gojaengine

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
	"github.com/codemode/codemode/runtime/internal/source"
	"github.com/codemode/codemode/tools/errs"
)

// TestHammerPool runs many per-call programs (with nested calls, timeouts
// and closes racing runs) from several goroutines against a small pool.
func TestHammerPool(t *testing.T) {
	// No bound on abandoned runs: on a loaded machine a busy loop can miss
	// the grace period and be abandoned, and this test is about the pool.
	eng := newTestEngine(t, Options{PoolSize: 2, MaxAbandoned: -1})
	workers, runs := 8, 40
	if testing.Short() {
		runs = 10
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*runs)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range runs {
				errs <- hammerOnce(eng, w, i)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func hammerOnce(eng engine.Engine, w, i int) error {
	ctx := context.Background()
	ft := enginetest.NewFakeTools()
	kind := (w + i) % 4
	code := map[int]string{
		0: fmt.Sprintf("const r = await Promise.all([tools.echo({n: %d}), tools.echo({n: 1})])\nreturn r[0].n + r[1].n", i),
		1: "for (;;) {}",
		2: "console.log('x'); return (await tools.echo({s: 'y'})).s",
		3: "tools.slow({}); for (;;) await null",
	}[kind]
	s, err := source.Prepare(code, source.Options{Persistent: false})
	if err != nil {
		return err
	}
	env, err := eng.NewEnv(ctx, engine.EnvOptions{})
	if err != nil {
		return err
	}
	deadline := 10 * time.Second // well-behaved programs on a loaded machine
	if kind == 1 || kind == 3 {
		deadline = 100 * time.Millisecond
	}
	job := &engine.Job{Script: s.JS, Name: "program.js", LineOffset: s.LineOffset, Tools: ft.Names(), Call: ft.Call, Log: func(string, string) {}, Deadline: time.Now().Add(deadline)}
	if kind == 3 {
		// Close races the run: it must end, with an error, promptly.
		go env.Close()
	}
	res := env.Run(ctx, job)
	env.Close()
	switch kind {
	case 0:
		if res.Err != nil || string(res.Value) != fmt.Sprint(i+1) {
			return fmt.Errorf("worker %d run %d: got %s, %v; want %d", w, i, res.Value, res.Err, i+1)
		}
	case 1:
		if res.Err == nil || res.Err.Code != errs.CodeTimeout {
			return fmt.Errorf("worker %d run %d: got %v, want TIMEOUT", w, i, res.Err)
		}
	case 2:
		if res.Err != nil || string(res.Value) != `"y"` {
			return fmt.Errorf("worker %d run %d: got %s, %v; want \"y\"", w, i, res.Value, res.Err)
		}
	case 3:
		if res.Err == nil {
			return fmt.Errorf("worker %d run %d: got value %s, want an error", w, i, res.Value)
		}
	}
	return nil
}

// TestCloseStopsGoroutines checks that an engine's goroutines (the pool's
// filler, the guard) end with Close; TestMain's goleak check covers the whole package.
func TestCloseStopsGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	e, err := New(Options{PoolSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if o := enginetest.Exec(t, e, "return 1", enginetest.ExecOptions{}); o.Err != nil {
		t.Fatal(o.Err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := e.NewEnv(context.Background(), engine.EnvOptions{}); err == nil {
		t.Error("NewEnv after Close: got nil error")
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Logf("goroutines: %d before, %d after Close (goleak in TestMain checks they end)", before, after)
	}
}

// BenchmarkMemoryGuardOvershoot runs an array bomb against a 256 MiB
// budget and reports how far past the budget the heap got: the peak of the
// live heap (from a sampler at 1 ms and the guard's reading at the kill)
// minus the baseline and the budget.
func BenchmarkMemoryGuardOvershoot(b *testing.B) {
	const budget = 256 << 20
	eng := newTestEngine(b, Options{})
	g := eng.(*engine.Base).Driver().(*driver).guard
	s, err := source.Prepare("const a = []\nfor (;;) a.push(new Array(100000).fill(1))", source.Options{Persistent: false})
	if err != nil {
		b.Fatal(err)
	}
	var worst, total float64
	for range b.N {
		runtime.GC()
		base := readHeap(newSamples()).objects
		stop := make(chan struct{})
		peakCh := make(chan uint64, 1)
		go func() { // sample the peak while the bomb runs
			peak := uint64(0)
			tk := time.NewTicker(time.Millisecond)
			defer tk.Stop()
			sm := newSamples()
			for {
				select {
				case <-stop:
					peakCh <- peak
					return
				case <-tk.C:
					peak = max(peak, readHeap(sm).objects)
				}
			}
		}()
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{MemoryLimit: budget})
		if err != nil {
			b.Fatal(err)
		}
		res := env.Run(context.Background(), &engine.Job{Script: s.JS, Name: "program.js", LineOffset: 1, Log: func(string, string) {}, Deadline: time.Now().Add(60 * time.Second)})
		env.Close()
		close(stop)
		peak := <-peakCh
		if res.Err == nil || res.Err.Code != errs.CodeMemoryLimit {
			b.Fatalf("got %v, want MEMORY_LIMIT", res.Err)
		}
		g.statsMu.Lock()
		if n := len(g.kills); n > 0 {
			peak = max(peak, g.kills[n-1].heap)
		}
		g.statsMu.Unlock()
		over := (float64(peak) - float64(base) - budget) / (1 << 20)
		worst = max(worst, over)
		total += over
	}
	b.ReportMetric(total/float64(b.N), "MiB-over-budget")
	b.ReportMetric(worst, "worst-MiB-over-budget")
}
