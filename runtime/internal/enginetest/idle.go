package enginetest

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

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

// ProcMem is what the process holds, as Linux and the Go runtime see it.
type ProcMem struct {
	RSS      int64 // resident set (VmRSS), bytes; counts a page once per mapping of it
	PSS      int64 // proportional set (Pss of smaps_rollup): shared pages counted once in all
	Anon     int64 // anonymous pages (Anonymous of smaps_rollup): Go heap, written wasm pages
	PTE      int64 // page tables (VmPTE), bytes
	Maps     int   // memory mappings (lines of /proc/self/maps)
	HeapLive int64 // live Go heap after two GCs (HeapAlloc)
	GoHeld   int64 // what the Go runtime holds from the OS (Sys − HeapReleased)
}

// ReadProcMem collects garbage, returns freed Go heap to the OS and reads
// the process's memory figures. Off Linux RSS, PTE and Maps are zero.
func ReadProcMem() ProcMem {
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	p := ProcMem{HeapLive: int64(m.HeapAlloc), GoHeld: int64(m.Sys - m.HeapReleased)}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			n, _ := strconv.ParseInt(f[0], 10, 64)
			switch k {
			case "VmRSS":
				p.RSS = n << 10
			case "VmPTE":
				p.PTE = n << 10
			}
		}
	}
	if b, err := os.ReadFile("/proc/self/smaps_rollup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			n, _ := strconv.ParseInt(f[0], 10, 64)
			switch k {
			case "Pss":
				p.PSS = n << 10
			case "Anonymous":
				p.Anon = n << 10
			}
		}
	}
	if b, err := os.ReadFile("/proc/self/maps"); err == nil {
		p.Maps = strings.Count(string(b), "\n")
	}
	return p
}

// IdleMemory creates n persistent environments, each having run `return
// 1 + 1`, and returns the process's figures before (with one such
// environment already made) and after (settle later), and how long the n
// took. The
// environments are closed before it returns. With
// $CODEMODE_IDLE_HEAPPROFILE set, a heap profile taken while they live is
// written there.
func IdleMemory(t testing.TB, eng engine.Engine, n int, settle time.Duration) (before, after ProcMem, took time.Duration) {
	t.Helper()
	envs := make([]engine.Env, 0, n+1)
	defer func() {
		for _, e := range envs {
			e.Close()
		}
	}()
	run := func() {
		e, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
		if err != nil {
			t.Fatalf("environment %d: %v", len(envs), err)
		}
		envs = append(envs, e)
		if o := Exec(t, eng, "return 1 + 1", ExecOptions{Env: e}); o.Err != nil || string(o.Value) != "2" {
			t.Fatalf("environment %d: got %s, %v", len(envs), o.Value, o.Err)
		}
	}
	run()
	before = ReadProcMem()
	start := time.Now()
	for range n {
		run()
	}
	took = time.Since(start)
	time.Sleep(settle)
	after = ReadProcMem()
	if path := os.Getenv("CODEMODE_IDLE_SMAPS"); path != "" {
		if b, err := os.ReadFile("/proc/self/smaps"); err == nil {
			_ = os.WriteFile(path, b, 0o644)
		}
	}
	if path := os.Getenv("CODEMODE_IDLE_HEAPPROFILE"); path != "" {
		// What the live environments hold, by allocation site.
		if f, err := os.Create(path); err == nil {
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
	}
	return before, after, took
}
