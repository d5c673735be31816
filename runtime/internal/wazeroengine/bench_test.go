package wazeroengine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
	"github.com/codemode/codemode/runtime/internal/gojaengine"
)

// The benchmarks run each workload on this engine and, for comparison in
// the same process, on the goja engine:
//
//	go test -run '^$' -bench . -benchtime 2s ./runtime/internal/wazeroengine/

var workloads = []struct{ name, body string }{
	{"trivial", "return 1 + 1"},
	{"nested_call_0", "return 1"},
	{"nested_call_1", "return (await tools.echo({a: 1})).a"},
	{"nested_call_10", "let s = 0\nfor (let i = 0; i < 10; i++) s += (await tools.echo({a: i})).a\nreturn s"},
	// groupBy installs es.js's Object.groupBy first (QuickJS-ng's gets
	// iterator closing and element definition wrong).
	{"groupby", "const g = Object.groupBy([1, 2, 3, 4, 5], x => x % 2 ? 'odd' : 'even')\nreturn g.odd.length"},
	// weakref installs es.js's WeakRef first (QuickJS-ng's frees an
	// unreferenced target at once).
	{"weakref", "const r = new WeakRef({a: 1})\nreturn typeof r.deref()"},
	{"fib25", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }\nreturn fib(25)"},
	{"records_10k", `const rows = []
for (let i = 0; i < 10000; i++) rows.push({id: i, name: "item" + i, price: i % 100, tags: ["a", "b"]})
const out = rows.filter(r => r.price > 50).map(r => ({id: r.id, total: r.price * 2}))
return out.reduce((s, r) => s + r.total, 0)`},
}

func benchEngines(b *testing.B) map[string]engine.Engine {
	b.Helper()
	// The filler does not run: the benchmark refills the pool itself,
	// untimed, so that the timed part (the request path) does not share
	// the two CPUs with background work.
	w, err := newStopped(Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	w.Fill()
	g, err := gojaengine.New(gojaengine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { g.Close() })
	return map[string]engine.Engine{"wazero": w, "goja": g}
}

// BenchmarkPerCall measures one per-call program end to end as a request
// sees it: NewEnv (a warm environment from the pool), Run, Close. Between
// iterations, untimed, the wazero engine's pool is refilled (a fresh
// context is a snapshot restore, tens of microseconds of background work;
// BenchmarkPerCallSaturated shows the throughput bound that sets).
func BenchmarkPerCall(b *testing.B) {
	engines := benchEngines(b)
	for _, w := range workloads {
		for _, name := range []string{"wazero", "goja"} {
			eng := engines[name]
			b.Run(w.name+"/"+name, func(b *testing.B) {
				job := &engine.Job{Script: script(w.body), Name: "program.js", LineOffset: 1, Tools: []string{"echo"}, Call: echo}
				b.ReportAllocs()
				for b.Loop() {
					runPerCall(b, eng, job)
					if w, ok := eng.(*engine.Base); ok && name == "wazero" {
						b.StopTimer()
						w.Fill()
						b.StartTimer()
					}
				}
			})
		}
	}
}

// BenchmarkPerCallSaturated runs per-call trivial programs back to back,
// faster than the pool refills: the throughput bound, where NewEnv often
// resets a released instance on the caller's goroutine.
func BenchmarkPerCallSaturated(b *testing.B) {
	engines := benchEngines(b)
	engines["wazero"] = newTestEngine(b, Options{}) // with its filler
	for _, name := range []string{"wazero", "goja"} {
		eng := engines[name]
		b.Run(name, func(b *testing.B) {
			job := &engine.Job{Script: script("return 1 + 1"), Name: "program.js", LineOffset: 1}
			b.ReportAllocs()
			for b.Loop() {
				runPerCall(b, eng, job)
			}
		})
	}
}

// BenchmarkColdStart measures a new process's first program with the
// compilation cache warm: a fresh wazero runtime (module loaded from the
// on-disk cache, host module, ABI checks), one instance, one context with
// the prelude, one program.
func BenchmarkColdStart(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "wazero-cache")
	first := func() {
		e, err := New(Options{PoolSize: -1, CacheDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		env, err := e.NewEnv(context.Background(), engine.EnvOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if res := env.Run(context.Background(), &engine.Job{Script: script("return 1 + 1"), Name: "program.js", LineOffset: 1, Deadline: time.Now().Add(10 * time.Second)}); string(res.Value) != "2" {
			b.Fatalf("got %s %v", res.Value, res.Err)
		}
		env.Close()
		e.Close()
	}
	if _, err := os.Stat(dir); err != nil {
		first() // fills the compilation cache
	}
	b.ReportAllocs()
	for b.Loop() {
		first()
	}
}

// BenchmarkPersistent measures a program in a persistent environment (no
// NewEnv/Close per program).
func BenchmarkPersistent(b *testing.B) {
	engines := benchEngines(b)
	for _, name := range []string{"wazero", "goja"} {
		b.Run("trivial/"+name, func(b *testing.B) {
			env, err := engines[name].NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
			if err != nil {
				b.Fatal(err)
			}
			defer env.Close()
			job := &engine.Job{Script: script("return 1 + 1"), Name: "program.js", LineOffset: 1, Call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) { return nil, nil }}
			b.ReportAllocs()
			for b.Loop() {
				job.Deadline = time.Now().Add(10 * time.Second)
				if res := env.Run(context.Background(), job); res.Err != nil {
					b.Fatal(res.Err)
				}
			}
		})
	}
}

// runPerCall runs job once in a fresh per-call environment.
func runPerCall(b *testing.B, eng engine.Engine, job *engine.Job) {
	env, err := eng.NewEnv(context.Background(), engine.EnvOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	job.Deadline = time.Now().Add(10 * time.Second)
	if res := env.Run(context.Background(), job); res.Err != nil {
		b.Fatal(res.Err)
	}
}

// TestIdleSize reports what an idle persistent environment holds in Go
// heap (its wasm memory is counted by the memory cap, not here).
func TestIdleSize(t *testing.T) {
	eng := newTestEngine(t, Options{PoolSize: -1})
	t.Logf("an idle persistent wazero environment holds %d KiB of Go heap", enginetest.IdleSize(t, eng, 20)>>10)
}

// TestIdleMemory measures what idle persistent environments cost the
// process: resident memory (Go heap and wasm pages), page tables and
// memory mappings, per environment, at $CODEMODE_IDLE_ENVS environments
// (skipped when unset), once compacted (CompactAfter 10 ms; with
// CODEMODE_IDLE_COMPACT=off, never: the state right after a run):
//
//	CODEMODE_IDLE_ENVS=10000 go test ./runtime/internal/wazeroengine -run TestIdleMemory -v -timeout 30m
//
// Past about 32,000 environments the process needs more memory mappings
// than Linux's default vm.max_map_count (65530) allows: each instance has
// two (see docs/engines.md).
func TestIdleMemory(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CODEMODE_IDLE_ENVS"))
	if n <= 0 {
		t.Skip("set CODEMODE_IDLE_ENVS to the number of environments")
	}
	opts, settle := Options{PoolSize: -1, CompactAfter: 10 * time.Millisecond}, time.Second
	if os.Getenv("CODEMODE_IDLE_COMPACT") == "off" {
		opts.CompactAfter, settle = -1, 0
	}
	eng := newTestEngine(t, opts)
	before, after, took := enginetest.IdleMemory(t, eng, n, settle)
	per := func(a, b int64) float64 { return float64(b-a) / float64(n) / 1024 }
	t.Logf("%d idle persistent wazero environments (compact after %v) in %v: per environment RSS %.1f KiB, PSS %.1f KiB, anonymous %.1f KiB, Go heap %.1f KiB (Go runtime holds %.1f KiB), page tables %.1f KiB, %.2f mappings; process RSS %d MiB, PSS %d MiB, %d mappings",
		n, opts.CompactAfter, took.Round(time.Millisecond), per(before.RSS, after.RSS), per(before.PSS, after.PSS), per(before.Anon, after.Anon), per(before.HeapLive, after.HeapLive), per(before.GoHeld, after.GoHeld), per(before.PTE, after.PTE),
		float64(after.Maps-before.Maps)/float64(n), after.RSS>>20, after.PSS>>20, after.Maps)
}

// BenchmarkNestedCall measures one nested call awaited alone, in a
// persistent environment: a program of 100 sequential calls of a tool
// that answers at once, per call (the run's fixed cost included, 1/100
// of it):
//
//	go test -run '^$' -bench BenchmarkNestedCall -benchmem ./runtime/internal/wazeroengine/
func BenchmarkNestedCall(b *testing.B) {
	engines := benchEngines(b)
	for _, name := range []string{"wazero", "goja"} {
		b.Run(name, func(b *testing.B) {
			env, err := engines[name].NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
			if err != nil {
				b.Fatal(err)
			}
			defer env.Close()
			const calls = 100
			job := &engine.Job{Script: script("let s = 0\nfor (let i = 0; i < 100; i++) s += (await tools.echo({a: 1})).a\nreturn s"), Name: "program.js", LineOffset: 1, Tools: []string{"echo"}, Call: echo}
			b.ReportAllocs()
			for b.Loop() {
				job.Deadline = time.Now().Add(10 * time.Second)
				if res := env.Run(context.Background(), job); res.Err != nil || string(res.Value) != "100" {
					b.Fatalf("got %s, %v", res.Value, res.Err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}
