package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools/errs"
	"go.uber.org/goleak"
)

// countingEngine is a fake engine that counts live environments; its Run
// echoes a counter kept in the environment, so persistence is observable.
type countingEngine struct {
	live atomic.Int64
	made atomic.Int64
	// retained is what every environment reports holding after a run.
	retained atomic.Int64
	// hook, if set, runs inside every Run (tests block runs with it).
	hook func()
}

type countingEnv struct {
	eng      *countingEngine
	runs     int
	closed   atomic.Bool
	broken   atomic.Bool // a program containing "break-env" timed out and broke it
	released func()
}

func (e *countingEngine) NewEnv(ctx context.Context, o engine.EnvOptions) (engine.Env, error) {
	e.live.Add(1)
	e.made.Add(1)
	return &countingEnv{eng: e, released: o.Released}, nil
}
func (e *countingEngine) Close() error { return nil }

func (v *countingEnv) Run(ctx context.Context, j *engine.Job) engine.Result {
	if v.eng.hook != nil {
		v.eng.hook()
	}
	if !v.Usable() {
		// What the real engines answer: running in a discarded
		// environment is a bug of ours.
		return engine.Result{Err: errs.Errorf(errs.CodeInternal, "the environment is not usable")}
	}
	if strings.Contains(j.Script, "break-env") {
		v.broken.Store(true)
		return engine.Result{Err: errs.Errorf(errs.CodeTimeout, "timed out")}
	}
	v.runs++
	b, _ := json.Marshal(v.runs)
	return engine.Result{Value: b}
}
func (v *countingEnv) Globals() []string { return []string{"x"} }
func (v *countingEnv) Usable() bool      { return !v.closed.Load() && !v.broken.Load() }
func (v *countingEnv) Retained() int64   { return v.eng.retained.Load() }
func (v *countingEnv) Close() error {
	if !v.closed.Swap(true) {
		v.eng.live.Add(-1)
		if v.released != nil {
			v.released()
		}
	}
	return nil
}

func newCounting(t *testing.T) (*Runtime, *countingEngine) {
	eng := &countingEngine{}
	rt := &Runtime{limits: Limits{}.WithDefaults(), eng: eng}
	rt.log = slog.New(slog.DiscardHandler)
	return rt, eng
}

func run(t *testing.T, es *Environments, o Owner) int {
	t.Helper()
	out := es.Run(context.Background(), o, Request{Code: "return 1"})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	var n int
	json.Unmarshal(out.Value, &n)
	return n
}

func TestRetention(t *testing.T) {
	defer goleak.VerifyNone(t, regexpClock)
	rt, eng := newCounting(t)
	host := scope.NewHost("h")
	preset := host.Child(scope.KindPreset, "p")
	plugin := preset.Child(scope.KindPlugin, "codemode")
	agentA := preset.Child(scope.KindAgent, "a")
	agentB := preset.Child(scope.KindAgent, "b")
	es := rt.NewEnvironments(plugin, EnvOptions{})

	oA := es.Owner(agentA, "codemode")
	pluginEffects, agentEffects := plugin.Effects(), agentA.Effects()
	for range 5 {
		if o := es.Owner(agentA, "codemode"); o != oA {
			t.Fatal("owners are not de-duplicated per (agent, provider)")
		}
	}
	if plugin.Effects() != pluginEffects || agentA.Effects() != agentEffects {
		t.Fatalf("repeated Owner calls piled up disposers: plugin %d→%d, agent %d→%d", pluginEffects, plugin.Effects(), agentEffects, agentA.Effects())
	}
	// State persists per owner.
	if a, b := run(t, es, oA), run(t, es, oA); a != 1 || b != 2 {
		t.Fatalf("got runs %d, %d, want 1, 2", a, b)
	}
	oB := es.Owner(agentB, "codemode")
	run(t, es, oB)
	if got := eng.live.Load(); got != 2 {
		t.Fatalf("got %d live environments, want 2", got)
	}
	// Disposing an agent frees its environment and drops the plugin-side
	// registration.
	agentA.Dispose()
	if got := eng.live.Load(); got != 1 {
		t.Fatalf("after agent disposal: got %d live, want 1", got)
	}
	if got := plugin.Effects(); got != pluginEffects {
		t.Fatalf("agent disposal left the plugin-side registration: %d effects, want %d", got, pluginEffects)
	}
	// Disposing the plugin frees every leftover, and the agent-side
	// registration goes too.
	plugin.Dispose()
	if got := eng.live.Load(); got != 0 {
		t.Fatalf("after plugin disposal: got %d live, want 0", got)
	}
	if got := agentB.Effects(); got != 0 {
		t.Fatalf("plugin disposal left %d effects on the agent", got)
	}
	if out := es.Run(context.Background(), oB, Request{}); out.Err == nil {
		t.Fatal("a run after the plugin was unloaded succeeded")
	}
	host.Dispose()
}

func TestRetentionAgentOutlivesPluginObject(t *testing.T) {
	rt, eng := newCounting(t)
	host := scope.NewHost("h")
	defer host.Dispose()
	plugin := host.Child(scope.KindPlugin, "codemode")
	agent := host.Child(scope.KindAgent, "a")
	func() {
		es := rt.NewEnvironments(plugin, EnvOptions{IdleTTL: -1})
		run(t, es, es.Owner(agent, "codemode"))
	}() // nothing of the plugin is referenced any more but its scope
	agent.Dispose()
	if got := eng.live.Load(); got != 0 {
		t.Fatalf("got %d live environments after the agent ended, want 0", got)
	}
}

func TestLRUEvictionAndIdleExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, eng := newCounting(t)
		host := scope.NewHost("h")
		plugin := host.Child(scope.KindPlugin, "codemode")
		es := rt.NewEnvironments(plugin, EnvOptions{MaxEnvironments: 2, IdleTTL: time.Minute})
		var owners []Owner
		for _, id := range []string{"a", "b", "c"} {
			o := es.Owner(host.Child(scope.KindAgent, id), "codemode")
			owners = append(owners, o)
			run(t, es, o)
		}
		if got := eng.live.Load(); got != 2 || es.Len() != 2 {
			t.Fatalf("capacity 2: got %d live, Len %d", got, es.Len())
		}
		// "a" was evicted: its next run starts fresh.
		if n := run(t, es, owners[0]); n != 1 {
			t.Fatalf("evicted owner kept state: run %d", n)
		}
		// Idle expiry: after the TTL everything is released.
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if got := eng.live.Load(); got != 0 || es.Len() != 0 {
			t.Fatalf("after idle TTL: got %d live, Len %d", got, es.Len())
		}
		// Owners survive eviction: a new run gets a fresh environment.
		if n := run(t, es, owners[1]); n != 1 {
			t.Fatalf("got run %d, want a fresh environment", n)
		}
		plugin.Dispose()
		host.Dispose()
	})
}

func TestEnvironmentsHammer(t *testing.T) {
	defer goleak.VerifyNone(t, regexpClock)
	rt, eng := newCounting(t)
	host := scope.NewHost("h")
	plugin := host.Child(scope.KindPlugin, "codemode")
	es := rt.NewEnvironments(plugin, EnvOptions{MaxEnvironments: 4})
	var agents []*scope.Scope
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		agents = append(agents, host.Child(scope.KindAgent, id))
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				ag := agents[(i+j)%len(agents)]
				o := es.Owner(ag, "codemode")
				switch j % 17 {
				case 0:
					es.Reset(o)
				case 5:
					es.Release(o)
				default:
					es.Run(context.Background(), o, Request{Code: "return 1"})
				}
			}
		}()
	}
	wg.Wait()
	if es.Len() > 4 {
		t.Fatalf("Len %d over capacity", es.Len())
	}
	plugin.Dispose()
	if got := eng.live.Load(); got != 0 {
		t.Fatalf("got %d live environments after the plugin was disposed", got)
	}
	host.Dispose()
}

// TestResetCause: an owner whose environment was discarded while it lived
// on learns why on its next run, once.
func TestResetCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt, _ := newCounting(t)
		host := scope.NewHost("h")
		defer host.Dispose()
		plugin := host.Child(scope.KindPlugin, "codemode")
		es := rt.NewEnvironments(plugin, EnvOptions{MaxEnvironments: 1, IdleTTL: time.Minute})
		a := es.Owner(host.Child(scope.KindAgent, "a"), "codemode")
		b := es.Owner(host.Child(scope.KindAgent, "b"), "codemode")
		steps := []struct {
			name   string
			before func()
			owner  Owner
			want   ResetCause
		}{
			{name: "first use is no reset", owner: a, want: ""},
			{name: "a kept", owner: a, want: ""},
			{name: "b's first use evicts a", owner: b, want: ""},
			{name: "a evicted", owner: a, want: ResetEvicted},
			{name: "told once", owner: a, want: ""},
			{name: "reset requested", before: func() { es.Reset(a) }, owner: a, want: ResetRequested},
			{name: "idle", before: func() { time.Sleep(2 * time.Minute); synctest.Wait() }, owner: a, want: ResetIdle},
		}
		for _, s := range steps {
			if s.before != nil {
				s.before()
			}
			out := es.Run(context.Background(), s.owner, Request{Code: "return 1"})
			if out.Err != nil {
				t.Fatalf("%s: %v", s.name, out.Err)
			}
			if out.ResetCause != s.want {
				t.Errorf("%s: got cause %q, want %q", s.name, out.ResetCause, s.want)
			}
		}
		if got := es.Globals(a); len(got) != 1 || got[0] != "x" {
			t.Errorf("globals of a live environment: got %q, want [x]", got)
		}
		es.Reset(a)
		if got := es.Globals(a); got != nil {
			t.Errorf("globals after a reset: got %q, want none", got)
		}
		if got := es.Globals(Owner{}); got != nil {
			t.Errorf("globals of the zero owner: got %q", got)
		}
		plugin.Dispose()
	})
}

// TestQueuedRunAfterABrokenOne: a run of the same owner that waited for a
// run which broke the environment (a timeout on goja) gets a fresh one and
// is told why, instead of INTERNAL from the discarded one.
func TestQueuedRunAfterABrokenOne(t *testing.T) {
	rt, eng := newCounting(t)
	host := scope.NewHost("h")
	defer host.Dispose()
	es := rt.NewEnvironments(host.Child(scope.KindPlugin, "codemode"), EnvOptions{})
	o := es.Owner(host.Child(scope.KindAgent, "a"), "codemode")
	if out := es.Run(context.Background(), o, Request{Code: "return 1"}); out.Err != nil {
		t.Fatal(out.Err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	eng.hook = func() {
		once.Do(func() { close(entered); <-release })
	}
	first := make(chan Outcome, 1)
	go func() { first <- es.Run(context.Background(), o, Request{Code: `"break-env"`}) }()
	<-entered
	second := make(chan Outcome, 1)
	go func() { second <- es.Run(context.Background(), o, Request{Code: "return 2"}) }()
	time.Sleep(20 * time.Millisecond) // let the second run queue behind the first (without the fix this fails a few times in 200 runs under -race)
	close(release)
	if out := <-first; errs.CodeOf(out.Err) != errs.CodeTimeout {
		t.Fatalf("first run: got %v, want TIMEOUT", out.Err)
	}
	out := <-second
	if out.Err != nil {
		t.Fatalf("queued run: got %v, want a fresh environment", out.Err)
	}
	if !out.Reset || out.ResetCause != ResetTimeout {
		t.Errorf("queued run: Reset %v cause %q, want a reset with cause %q", out.Reset, out.ResetCause, ResetTimeout)
	}
}

// regexpClock is regexp2's clock goroutine, which goja's regular
// expressions start (gojaengine sets a match timeout) and which ends by
// itself about two seconds after the last match.
var regexpClock = goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock")
