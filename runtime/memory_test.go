package runtime_test

import (
	"context"
	"os"
	goruntime "runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools/errs"
)

// liveHeap collects and reads the live heap.
func liveHeap() uint64 {
	goruntime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestPersistentGrowthIsBounded: a persistent environment whose every run
// keeps ~24 MiB more (objects, or a typed array), each run well within its 64 MiB budget, used to grow
// without limit on goja (the guard bounded growth during a run, not what
// the environment kept). What an environment retains now counts against
// its budget on both engines: within a few runs one fails with
// MEMORY_LIMIT or the environment is reset for memory, and the heap never
// holds much more than the budget.
func TestPersistentGrowthIsBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes goja's allocations too slow for this test's pace")
	}
	const budget = 64 << 20
	programs := map[string]string{
		"objects": `globalThis.keep = globalThis.keep || [];
const a = []; for (let i = 0; i < 60000; i++) a.push({i, s: "item " + i});
keep.push(a);
return keep.length`,
		// Under the size at which a run's end measures retention: runs add
		// up until it is worth a measurement.
		"trickle": `globalThis.keep = globalThis.keep || [];
keep.push("x".repeat(512 << 10) + keep.length);
return keep.length`,
		"buffer": `globalThis.keep = globalThis.keep || [];
keep.push(new Float64Array(3 << 20).fill(1.5)); // 24 MiB
return keep.length`,
	}
	for _, c := range []struct {
		engine, program string
		runs            int
	}{
		{runtime.EngineGoja, "objects", 12}, {runtime.EngineGoja, "buffer", 12}, {runtime.EngineGoja, "trickle", 200},
		{runtime.EngineWazero, "objects", 12}, {runtime.EngineWazero, "buffer", 12}, {runtime.EngineWazero, "trickle", 200},
	} {
		name, program := c.engine, programs[c.program]
		t.Run(name+"/"+c.program, func(t *testing.T) {
			rt, err := runtime.New(runtime.Options{Engine: name, Limits: runtime.Limits{Timeout: 10 * time.Second, MemoryBytes: budget}})
			if err != nil {
				t.Fatal(err)
			}
			defer rt.Close()
			host := scope.NewHost("h")
			defer host.Dispose()
			es := rt.NewEnvironments(host.Child(scope.KindPlugin, "codemode"), runtime.EnvOptions{IdleTTL: -1})
			o := es.Owner(host.Child(scope.KindAgent, "a"), "codemode")
			base := liveHeap()
			bounded := false
			var peak uint64
			for i := range c.runs {
				out := es.Run(context.Background(), o, runtime.Request{Code: program})
				if c.runs > 12 && i%10 != 9 && out.Err == nil && out.ResetCause == "" {
					continue // log and measure every tenth
				}
				live := liveHeap()
				peak = max(peak, live)
				t.Logf("run %d: value %s, err %v, reset %q, live heap +%d MiB", i+1, out.Value, out.Err, out.ResetCause, (int64(live)-int64(base))>>20)
				// (A typed array past what is left is refused up front on
				// goja, a RangeError naming the budget.)
				if errs.CodeOf(out.Err) == errs.CodeMemoryLimit || out.ResetCause == runtime.ResetMemory ||
					out.Err != nil && strings.Contains(out.Err.Message, "memory budget") {
					bounded = true
					break
				}
				if out.Err != nil {
					t.Fatalf("run %d: %v", i+1, out.Err)
				}
			}
			if !bounded {
				t.Fatalf("%d runs, each keeping more, under a 64 MiB budget: never MEMORY_LIMIT, never reset for memory", c.runs)
			}
			if grew := int64(peak) - int64(base); grew > 2*budget {
				t.Fatalf("the live heap grew by %d MiB, over twice the budget", grew>>20)
			}
		})
	}
}

// TestMemoryExperiment is the experiment behind docs/engines.md's table of
// the governor's figures; it measures, asserts nothing, and runs only when
// asked (minutes on goja):
//
//	CODEMODE_MEMORY_EXPERIMENT=goja[:BUDGET_MIB] go test -run TestMemoryExperiment -v ./runtime/
//
// 8 persistent environments, each run keeping ~33 MiB of small objects on
// goja (~8 MiB on wazero), 6 rounds; VmRSS and VmHWM after each round,
// and the governor's count.
func TestMemoryExperiment(t *testing.T) {
	spec := os.Getenv("CODEMODE_MEMORY_EXPERIMENT")
	if spec == "" {
		t.Skip("set CODEMODE_MEMORY_EXPERIMENT=goja[:BUDGET_MIB] or wazero[:BUDGET_MIB]")
	}
	eng, budget, _ := strings.Cut(spec, ":")
	opts := runtime.Options{Engine: eng, Limits: runtime.Limits{Timeout: 20 * time.Second}}
	if budget != "" {
		mib, err := strconv.ParseInt(budget, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		opts.Governor = runtime.NewGovernor(mib << 20)
	}
	rt, err := runtime.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	host := scope.NewHost("h")
	defer host.Dispose()
	es := rt.NewEnvironments(host.Child(scope.KindPlugin, "codemode"), runtime.EnvOptions{IdleTTL: -1})
	var owners []runtime.Owner
	for i := range 8 {
		owners = append(owners, es.Owner(host.Child(scope.KindAgent, strconv.Itoa(i)), "codemode"))
	}
	const program = `globalThis.keep = globalThis.keep || [];
const a = []; for (let i = 0; i < 60000; i++) a.push({i, s: "item " + i});
keep.push(a); return keep.length`
	outcomes := map[string]int{}
	start := time.Now()
	for round := range 6 {
		for _, o := range owners {
			out := es.Run(context.Background(), o, runtime.Request{Code: program})
			k := string(errs.CodeOf(out.Err))
			if k == "" {
				k = "ok"
			}
			outcomes[k]++
			if out.ResetCause != "" {
				outcomes["reset: "+string(out.ResetCause)]++
			}
		}
		t.Logf("round %d: VmRSS %s, VmHWM %s, governor's count %d MiB of %d MiB", round+1,
			procStatus("VmRSS"), procStatus("VmHWM"), rt.Governor().InUse()>>20, rt.Governor().Budget()>>20)
	}
	t.Logf("%s: %v in %s; releases %v", eng, outcomes, time.Since(start).Round(time.Millisecond), es.Evictions())
}

// procStatus reads a field of /proc/self/status ("?" elsewhere).
func procStatus(field string) string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}
