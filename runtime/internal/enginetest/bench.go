package enginetest

import (
	"context"
	"encoding/json"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/source"
)

// Bench runs the engine benchmarks shared by all engines:
//
//	trivial            Run of `return 1` in a warm per-call env (median reported)
//	one-call           the same plus one awaited nested call on a no-op Call
//	ten-calls          ten sequential awaited nested calls
//	fib25              CPU: recursive fib(25)
//	new-env            NewEnv+Close when the pool cannot keep up: the cost of
//	                   building a runtime, which every per-call program
//	                   consumes (off the request path while the pool keeps up)
//	state/persistent   query 10k records loaded once in a persistent env
//	state/per-call     load the 10k records and query, per call
//	idle-persistent-env  heap held by an idle persistent env (bytes/env)
func Bench(b *testing.B, newEngine func(b *testing.B) engine.Engine) {
	eng := newEngine(b)
	noop := func(context.Context, string, json.RawMessage) (json.RawMessage, error) { return nil, nil }

	perCall := func(name, code string) {
		b.Run(name, func(b *testing.B) {
			s := prepared(b, code, false)
			job := &engine.Job{Script: s.JS, Name: ScriptName, LineOffset: s.LineOffset, Tools: []string{"noop"}, Call: noop, Log: func(string, string) {}}
			ctx := context.Background()
			times := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				// The environment is taken outside the timer: "warm" means
				// the pool had one ready (see new-env for what it costs).
				b.StopTimer()
				env, err := eng.NewEnv(ctx, engine.EnvOptions{})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				start := time.Now()
				job.Deadline = start.Add(10 * time.Second)
				res := env.Run(ctx, job)
				env.Close()
				times = append(times, time.Since(start))
				if res.Err != nil {
					b.Fatalf("run: %v", res.Err)
				}
			}
			b.StopTimer()
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "median-ns/op")
		})
	}
	perCall("trivial", "return 1")
	perCall("one-call", "return await tools.noop({})")
	perCall("ten-calls", "for (let i = 0; i < 10; i++) await tools.noop({i})\nreturn 1")
	perCall("fib25", "function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2) }\nreturn fib(25)")

	b.Run("new-env", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			env, err := eng.NewEnv(context.Background(), engine.EnvOptions{})
			if err != nil {
				b.Fatal(err)
			}
			env.Close()
		}
	})

	const load = "const records = []\nfor (let i = 0; i < 10000; i++) records.push({id: i, name: 'item' + i, tags: ['a', 'b'], score: i % 97})\n"
	const query = "return records.filter(r => r.score === 42).length"
	b.Run("state/persistent", func(b *testing.B) {
		env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
		if err != nil {
			b.Fatal(err)
		}
		defer env.Close()
		runIn(b, env, load)
		s := prepared(b, query, true)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			runScript(b, env, s)
		}
	})
	b.Run("state/per-call", func(b *testing.B) {
		s := prepared(b, load+query, false)
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			env, err := eng.NewEnv(context.Background(), engine.EnvOptions{})
			if err != nil {
				b.Fatal(err)
			}
			runScript(b, env, s)
			env.Close()
		}
	})
	b.Run("idle-persistent-env", func(b *testing.B) {
		const n = 100
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		envs := make([]engine.Env, 0, n)
		for range n {
			env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
			if err != nil {
				b.Fatal(err)
			}
			runIn(b, env, "let counter = 1\nfunction bump() { return ++counter }")
			envs = append(envs, env)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/n, "heap-bytes/env")
		for _, env := range envs {
			env.Close()
		}
		for range b.N { // the measurement is above; keep the harness happy
		}
	})
}

func prepared(b testing.TB, code string, persistent bool) *source.Script {
	s, err := source.Prepare(code, source.Options{Persistent: persistent})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func runIn(b testing.TB, env engine.Env, code string) {
	runScript(b, env, prepared(b, code, true))
}

func runScript(b testing.TB, env engine.Env, s *source.Script) {
	res := env.Run(context.Background(), &engine.Job{Script: s.JS, Name: ScriptName, LineOffset: s.LineOffset, Log: func(string, string) {}, Deadline: time.Now().Add(30 * time.Second)})
	if res.Err != nil {
		b.Fatalf("run: %v", res.Err)
	}
}
