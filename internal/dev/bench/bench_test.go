package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The Go benchmarks behind each figure of `codemode bench` (see
// docs/benchmarks.md). They drive the same target and programs as the
// command, through the full stack (code_run via Registry.Execute), and check
// every answer.
//
//	go test -run '^$' -bench BenchmarkWorkloads -benchmem ./internal/bench
//	go test -run '^$' -bench BenchmarkSweep -benchmem ./internal/bench
//	go test -run '^$' -bench BenchmarkViaMCP ./internal/bench

// BenchmarkWorkloads backs the table and the latency chart: one
// sub-benchmark per engine/mode/workload. In persistent mode the
// environment is set up (the repl records loaded) before the timer starts,
// as the command does; heap-B/env is the live heap it then holds.
func BenchmarkWorkloads(b *testing.B) {
	benchWorkloads(b, Workloads())
}

// BenchmarkSweep backs the growth chart: calls with 1 to 1000 nested calls,
// repl with 1k to 100k records.
func BenchmarkSweep(b *testing.B) {
	benchWorkloads(b, SweepWorkloads())
}

func benchWorkloads(b *testing.B, workloads []*Workload) {
	for _, engine := range AllEngines {
		if err := checkEngine(engine); err != nil {
			b.Run(engine, func(b *testing.B) { b.Skipf("%s: unavailable (%v)", engine, err) })
			continue
		}
		for _, mode := range AllModes {
			for _, w := range workloads {
				b.Run(engine+"/"+mode+"/"+w.Name, func(b *testing.B) {
					s, err := newStack(engine, mode, 1, w.fixtures)
					if err != nil {
						b.Fatal(err)
					}
					defer s.close()
					benchTarget(b, s, w, mode == ModePersistent, true)
				})
			}
		}
	}
}

// BenchmarkViaMCP backs `codemode bench --via mcp`: code_run round trips
// through a `codemode serve` process over stdio (built into a temporary
// directory first), whose nested calls go to the fake MCP server process.
func BenchmarkViaMCP(b *testing.B) {
	exe := buildCodemode(b)
	for _, engine := range AllEngines {
		if err := checkEngine(engine); err != nil {
			b.Run(engine, func(b *testing.B) { b.Skipf("%s: unavailable (%v)", engine, err) })
			continue
		}
		for _, mode := range AllModes {
			for _, w := range (Options{Via: ViaMCP}).withDefaults().Workloads {
				b.Run(engine+"/"+mode+"/"+w.Name, func(b *testing.B) {
					t, err := newMCPTarget(exe, engine, mode, 1, "", ClientSDK)
					if err != nil {
						b.Fatal(err)
					}
					defer t.close()
					benchTarget(b, t, w, mode == ModePersistent, false)
				})
			}
		}
	}
}

func benchTarget(b *testing.B, t target, w *Workload, persistent, inProcess bool) {
	ctx := context.Background()
	code := w.Program(persistent)
	var before memSample
	if persistent && inProcess {
		before = sampleMemory()
	}
	if persistent && w.Setup != "" {
		if _, err := t.run(ctx, 0, w.Setup); err != nil {
			b.Fatalf("setup: %v", err)
		}
	}
	// One checked run outside the timer warms the path and, in persistent
	// mode, creates the environment before the heap is sampled.
	v, err := t.run(ctx, 0, code)
	if err == nil {
		err = w.Check(v)
	}
	if err != nil {
		b.Fatal(err)
	}
	var heap int64
	if persistent && inProcess {
		heap = max(0, sampleMemory().heap-before.heap)
	}
	b.ReportAllocs()
	for b.Loop() {
		v, err := t.run(ctx, 0, code)
		if err == nil {
			err = w.Check(v)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if heap > 0 {
		// After the loop: b.Loop's first call resets reported metrics.
		b.ReportMetric(float64(heap), "heap-B/env")
	}
}

// TestPeer runs W1 and one nested call on `codemode serve` and on the
// same-protocol peer (internal/dev/bench/peer) over stdio (with either
// client) and HTTP, in one Run. It needs node and the peer's node_modules (`npm ci` there); without
// them it is skipped, unless CODEMODE_REQUIRE_NODE=1 (CI, whose
// scripts/fetch-npm-fixtures.sh installs the peer): then it fails.
func TestPeer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds codemode and starts node")
	}
	p := &Peer{Script: filepath.Join("peer", "server.mjs")}
	if err := CheckPeer(p); err != nil {
		if os.Getenv("CODEMODE_REQUIRE_NODE") == "1" {
			t.Fatalf("the peer cannot run here (CODEMODE_REQUIRE_NODE=1): %v", err)
		}
		t.Skipf("the peer cannot run here: %v", err)
	}
	exe := buildCodemode(t)
	var ws []*Workload
	for _, w := range append(Workloads(), SweepWorkloads()...) {
		if w.Name == "trivial" || w.Name == "calls1" {
			ws = append(ws, w)
		}
	}
	for _, run := range []struct{ via, client string }{{ViaMCP, ClientSDK}, {ViaMCP, ClientRaw}, {ViaHTTP, ""}} {
		via := run.via
		rep, err := Run(context.Background(), Options{Engines: []string{"goja"}, Workloads: ws, N: 10, Via: via, Client: run.client, Peer: p, Executable: exe, Concurrency: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Rows) != 2*2*len(ws) {
			t.Fatalf("via %s: %d rows, want %d", via, len(rep.Rows), 2*2*len(ws))
		}
		for _, r := range rep.Rows {
			if r.Error != "" {
				t.Errorf("via %s: %s %s %s: %s", via, r.Engine, r.Mode, r.Workload, r.Error)
			}
		}
		if rep.Rows[1].Engine != PeerEngine {
			t.Errorf("via %s: the second row is %s, want the peer's", via, rep.Rows[1].Engine)
		}
	}
}
