package runtime

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools/errs"
)

const mib = 1 << 20

// TestGovernorReservations walks reservations through a budget of 100:
// what is admitted, what is refused, and what the governor holds after
// each step.
func TestGovernorReservations(t *testing.T) {
	type step struct {
		op      string // "reserve", "grow", "set", "close"
		slot    int    // which reservation
		n       int64
		refused bool
		used    int64 // InUse after the step
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"fits exactly", []step{
			{op: "reserve", slot: 0, n: 60, used: 60},
			{op: "reserve", slot: 1, n: 40, used: 100},
			{op: "reserve", slot: 2, n: 1, refused: true, used: 100},
			{op: "close", slot: 0, used: 40},
			{op: "reserve", slot: 2, n: 60, used: 100},
		}},
		{"grow refuses and keeps the size", []step{
			{op: "reserve", slot: 0, n: 30, used: 30},
			{op: "reserve", slot: 1, n: 50, used: 80},
			{op: "grow", slot: 0, n: 60, refused: true, used: 80},
			{op: "grow", slot: 0, n: 50, used: 100},
			{op: "grow", slot: 0, n: 10, used: 100}, // never shrinks
		}},
		{"set may go over, never refuses", []step{
			{op: "reserve", slot: 0, n: 90, used: 90},
			{op: "set", slot: 0, n: 130, used: 130},
			{op: "reserve", slot: 1, n: 1, refused: true, used: 130},
			{op: "set", slot: 0, n: 20, used: 20},
			{op: "reserve", slot: 1, n: 80, used: 100},
		}},
		{"close is idempotent and freezes", []step{
			{op: "reserve", slot: 0, n: 70, used: 70},
			{op: "close", slot: 0, used: 0},
			{op: "close", slot: 0, used: 0},
			{op: "set", slot: 0, n: 50, used: 0},
			{op: "grow", slot: 0, n: 90, used: 0},
		}},
		{"a reservation over the whole budget", []step{
			{op: "reserve", slot: 0, n: 101, refused: true, used: 0},
			{op: "reserve", slot: 0, n: 100, used: 100},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewGovernor(100)
			slots := map[int]*reservation{}
			for i, s := range tt.steps {
				var err *errs.Error
				switch s.op {
				case "reserve":
					var r *reservation
					r, err = g.reserve(s.n, false)
					if err == nil {
						slots[s.slot] = r
					}
				case "grow":
					err = slots[s.slot].grow(s.n)
				case "set":
					slots[s.slot].set(s.n)
				case "close":
					slots[s.slot].close()
				}
				if (err != nil) != s.refused {
					t.Fatalf("step %d (%s %d): refused = %v, want %v (%v)", i, s.op, s.n, err != nil, s.refused, err)
				}
				if err != nil && err.Code != errs.CodeOverloaded {
					t.Fatalf("step %d: code %s, want OVERLOADED", i, err.Code)
				}
				if got := g.InUse(); got != s.used {
					t.Fatalf("step %d (%s %d): in use %d, want %d", i, s.op, s.n, got, s.used)
				}
			}
		})
	}
}

func TestGovernorNilAndDefault(t *testing.T) {
	var g *Governor
	r, err := g.reserve(1<<62, false)
	if err != nil || r != nil {
		t.Fatalf("nil governor: %v, %v", r, err)
	}
	r.set(5)
	r.close()
	if NewGovernor(-1) != nil {
		t.Fatal("a negative budget should mean no governor")
	}
	if b := NewGovernor(0).Budget(); b <= 0 || b != DefaultTotalMemory() {
		t.Fatalf("default budget %d", b)
	}
}

func TestGovernorConcurrent(t *testing.T) {
	g := NewGovernor(10 * mib)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if r, err := g.reserve(3*mib, false); err == nil {
					if u := g.InUse(); u > g.Budget() {
						t.Errorf("in use %d over the budget", u)
					}
					r.set(mib)
					r.close()
				}
			}
		}()
	}
	wg.Wait()
	if u := g.InUse(); u != 0 {
		t.Fatalf("in use %d after everything closed", u)
	}
}

func TestCgroupLimit(t *testing.T) {
	tests := []struct {
		name  string
		self  string
		files map[string]string
		want  int64
	}{
		{"v2 nested", "0::/a/b\n", map[string]string{"a/b/memory.max": "1073741824\n", "memory.max": "max\n"}, 1 << 30},
		{"v2 root", "0::/\n", map[string]string{"memory.max": "536870912\n"}, 512 << 20},
		{"v2 unlimited", "0::/a\n", map[string]string{"a/memory.max": "max\n"}, 0},
		{"v1", "4:memory:/x\n1:cpu:/\n", map[string]string{"memory/x/memory.limit_in_bytes": "2147483648\n"}, 2 << 30},
		{"v1 with controllers listed", "4:cpuacct,memory:/x\n", map[string]string{"memory/x/memory.limit_in_bytes": "1048576\n"}, 1 << 20},
		{"v1 unlimited", "4:memory:/\n", map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712\n"}, 0},
		{"nothing", "", nil, 0},
		{"garbage", "0::/\n", map[string]string{"memory.max": "lots\n"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			self := filepath.Join(dir, "cgroup")
			os.WriteFile(self, []byte(tt.self), 0o644)
			root := filepath.Join(dir, "fs")
			for p, c := range tt.files {
				p = filepath.Join(root, p)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(c), 0o644)
			}
			if got := cgroupLimit(self, root); got != tt.want {
				t.Fatalf("got %d, want %d", got, tt.want)
			}
		})
	}
	if m := MachineMemory(); m <= 0 {
		t.Fatalf("machine memory %d", m)
	}
}

// newGoverned is a counting runtime under a governor of budget bytes,
// each run's budget 64 MiB.
func newGoverned(t *testing.T, budget int64) (*Runtime, *countingEngine) {
	rt, eng := newCounting(t)
	rt.limits.MemoryBytes = 64 * mib
	rt.gov = NewGovernor(budget)
	return rt, eng
}

// TestGovernorEvictsIdleEnvironments: past the total, the least recently
// used idle environment goes, and its owner's next run says why.
func TestGovernorEvictsIdleEnvironments(t *testing.T) {
	rt, eng := newGoverned(t, 200*mib)
	eng.retained.Store(60 * mib)
	host := scope.NewHost("h")
	defer host.Dispose()
	plugin := host.Child(scope.KindPlugin, "codemode")
	es := rt.NewEnvironments(plugin, EnvOptions{IdleTTL: -1})
	var owners []Owner
	for _, id := range []string{"a", "b", "c"} {
		o := es.Owner(host.Child(scope.KindAgent, id), "codemode")
		owners = append(owners, o)
		run(t, es, o)
	}
	if got := rt.gov.InUse(); got != 180*mib {
		t.Fatalf("three environments holding 60 MiB: in use %d MiB, want 180", got>>20)
	}
	// A fourth needs 64 MiB for its run: "a", the least recently used, goes.
	d := es.Owner(host.Child(scope.KindAgent, "d"), "codemode")
	run(t, es, d)
	if es.Len() != 3 || eng.live.Load() != 3 {
		t.Fatalf("after d: %d environments (%d live), want 3", es.Len(), eng.live.Load())
	}
	if got := es.Evictions()["memory budget"]; got != 1 {
		t.Fatalf("evictions by the governor: %d, want 1 (%v)", got, es.Evictions())
	}
	// a's next run starts fresh and is told why; it evicts b to fit.
	out := es.Run(context.Background(), owners[0], Request{Code: "return 1"})
	if out.Err != nil || out.ResetCause != ResetMemoryBudget || string(out.Value) != "1" {
		t.Fatalf("a after eviction: err %v, cause %q, value %s", out.Err, out.ResetCause, out.Value)
	}
	if got := rt.gov.InUse(); got > rt.gov.Budget() {
		t.Fatalf("in use %d MiB over the budget", got>>20)
	}
	// A per-call run fits beside them, evicting as it must.
	if out := rt.Run(context.Background(), Request{Code: "return 1"}); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got, ev := rt.gov.InUse(), es.Evictions()["memory budget"]; got != 120*mib || ev != 3 {
		t.Fatalf("after the per-call run: in use %d MiB, want 120 (c evicted, its reservation given back); %d evictions, want 3", got>>20, ev)
	}
	plugin.Dispose()
	if got := rt.gov.InUse(); got != 0 {
		t.Fatalf("after the plugin went: in use %d MiB", got>>20)
	}
}

// TestGovernorRefuses: with nothing idle to release, a run is refused with
// OVERLOADED before it starts, and admitted again once memory came back.
func TestGovernorRefuses(t *testing.T) {
	rt, eng := newGoverned(t, 100*mib)
	eng.retained.Store(10 * mib)
	entered, unblock := make(chan struct{}), make(chan struct{})
	var once sync.Once
	eng.hook = func() {
		once.Do(func() { close(entered); <-unblock })
	}
	host := scope.NewHost("h")
	defer host.Dispose()
	plugin := host.Child(scope.KindPlugin, "codemode")
	es := rt.NewEnvironments(plugin, EnvOptions{IdleTTL: -1})
	a := es.Owner(host.Child(scope.KindAgent, "a"), "codemode")
	done := make(chan Outcome)
	go func() { done <- es.Run(context.Background(), a, Request{Code: "return 1"}) }()
	<-entered // a's run holds 64 MiB and its environment is busy
	out := rt.Run(context.Background(), Request{Code: "return 1"})
	if errs.CodeOf(out.Err) != errs.CodeOverloaded {
		t.Fatalf("per-call run beside a busy 64 MiB one in 100 MiB: got %v, want OVERLOADED", out.Err)
	}
	b := es.Owner(host.Child(scope.KindAgent, "b"), "codemode")
	if out := es.Run(context.Background(), b, Request{Code: "return 1"}); errs.CodeOf(out.Err) != errs.CodeOverloaded {
		t.Fatalf("new environment: got %v, want OVERLOADED", out.Err)
	}
	if eng.made.Load() != 1 {
		t.Fatalf("a refused run made an environment (%d made)", eng.made.Load())
	}
	close(unblock)
	if out := <-done; out.Err != nil {
		t.Fatal(out.Err)
	}
	// a now holds 10 MiB: both fit.
	if out := rt.Run(context.Background(), Request{Code: "return 1"}); out.Err != nil {
		t.Fatal(out.Err)
	}
	if out := es.Run(context.Background(), b, Request{Code: "return 1"}); out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := rt.gov.InUse(); got != 20*mib {
		t.Fatalf("in use %d MiB, want 20", got>>20)
	}
}
