package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codemode/codemode/tools/errs"
)

// fakeVM is a VM whose "program" is Go: Eval makes script calls at once
// (a Promise.all of them), and the program settles when every call has.
type fakeVM struct {
	calls       int           // how many calls the program makes at once
	block       chan struct{} // if not nil, Eval waits on it (a stuck built-in)
	interrupted atomic.Bool
	hardStopped atomic.Bool
	closed      atomic.Bool
	retained    int64

	run     *Run
	pending int
	values  []string
	ended   bool
}

func (v *fakeVM) Configure(VMConfig) error { return nil }
func (v *fakeVM) Begin(r *Run) error       { v.run = r; return nil }
func (v *fakeVM) Eval(string, string) error {
	if v.block != nil {
		<-v.block
	}
	if v.interrupted.Load() {
		return &Fault{Kind: FaultInterrupted}
	}
	for i := range v.calls {
		v.run.Call("echo", json.RawMessage(strconv.Itoa(i)), 0)
		v.pending++
	}
	return v.RunJobs()
}
func (v *fakeVM) RunJobs() error {
	if v.pending == 0 {
		b, _ := json.Marshal(v.values)
		v.run.Done("v" + string(b))
	}
	return nil
}
func (v *fakeVM) Settle(batch []Settlement) error {
	for _, s := range batch {
		v.pending--
		if s.Err != nil {
			v.values = append(v.values, string(s.Err.Code))
		} else {
			v.values = append(v.values, string(s.Value))
		}
	}
	return nil
}
func (v *fakeVM) Interrupt()                 { v.interrupted.Store(true) }
func (v *fakeVM) HardStop()                  { v.hardStopped.Store(true) }
func (v *fakeVM) End(bool) bool              { v.run, v.ended = nil, true; return true }
func (v *fakeVM) Globals() ([]string, error) { return nil, nil }
func (v *fakeVM) Fits(int64) bool            { return true }
func (v *fakeVM) Retained() int64            { return v.retained }
func (v *fakeVM) Reusable() bool             { return false }
func (v *fakeVM) Close() error               { v.closed.Store(true); return nil }

type fakeDriver struct{ next func() *fakeVM }

func (d fakeDriver) NewVM() (VM, error) { return d.next(), nil }
func (d fakeDriver) Reset(VM) error     { return errors.New("no reset") }
func (d fakeDriver) Close() error       { return nil }

func newFake(t *testing.T, caps Capabilities, next func() *fakeVM) *Base {
	t.Helper()
	caps.Name = "fake"
	caps.PoolSize = -1
	b := New(caps, fakeDriver{next})
	t.Cleanup(func() { b.Close() })
	return b
}

// One bound: however many calls a program makes at once, at most
// Job.MaxConcurrentCalls are in flight, the rest wait in order.
func TestSchedulerBound(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the engine closes (cleanups run last first)
	b := newFake(t, Capabilities{}, func() *fakeVM { return &fakeVM{calls: 50} })
	var in, most atomic.Int64
	call := func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		n := in.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(time.Millisecond)
		in.Add(-1)
		return args, nil
	}
	env, err := b.NewEnv(context.Background(), EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	res := env.Run(context.Background(), &Job{Call: call, MaxConcurrentCalls: 3, Deadline: time.Now().Add(10 * time.Second)})
	var got []string
	if res.Err != nil || json.Unmarshal(res.Value, &got) != nil || len(got) != 50 {
		t.Fatalf("got %s, %v; want 50 values", res.Value, res.Err)
	}
	if m := most.Load(); m != 3 {
		t.Errorf("at most %d calls in flight, want 3", m)
	}
}

// A call the program waits for alone is made on the VM's goroutine.
func TestSchedulerInline(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the engine closes (cleanups run last first)
	b := newFake(t, Capabilities{}, func() *fakeVM { return &fakeVM{calls: 1} })
	e, err := b.NewEnv(context.Background(), EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var inline bool
	en := e.(*env)
	call := func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		en.mu.Lock()
		r := en.cur
		en.mu.Unlock()
		inline = r.inCall.Load() != nil // set only on the inline path
		return args, nil
	}
	res := e.Run(context.Background(), &Job{Call: call, Deadline: time.Now().Add(10 * time.Second)})
	if res.Err != nil || string(res.Value) != `["0"]` {
		t.Fatalf("got %s, %v", res.Value, res.Err)
	}
	if !inline {
		t.Error("the call awaited alone was not made inline")
	}
}

// The abandon rule: a VM that does not stop within the grace period of
// its deadline is hard-stopped and abandoned; Run returns, the
// environment is discarded, and the VM is closed when its goroutine comes
// back.
func TestAbandon(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the engine closes (cleanups run last first)
	block := make(chan struct{})
	v := &fakeVM{block: block}
	b := newFake(t, Capabilities{Grace: 20 * time.Millisecond}, func() *fakeVM { return v })
	var released atomic.Int64
	env, err := b.NewEnv(context.Background(), EnvOptions{Released: func() { released.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res := env.Run(context.Background(), &Job{Deadline: start.Add(30 * time.Millisecond)})
	if took := time.Since(start); res.Err == nil || res.Err.Code != errs.CodeTimeout || took > 2*time.Second {
		t.Fatalf("got %v after %v, want TIMEOUT soon after 50ms (deadline + grace)", res.Err, took)
	}
	if !v.interrupted.Load() || !v.hardStopped.Load() {
		t.Errorf("interrupted %v, hard-stopped %v; want both", v.interrupted.Load(), v.hardStopped.Load())
	}
	if env.Usable() {
		t.Error("an abandoned environment is usable")
	}
	env.Close()
	if v.closed.Load() {
		t.Error("the VM was closed while its goroutine was inside it")
	}
	if n := released.Load(); n != 0 {
		t.Errorf("Released was called %d times while the abandoned VM still ran (its memory is still held)", n)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		close(block)
		for !v.closed.Load() || released.Load() == 0 {
			time.Sleep(time.Millisecond)
		}
	})
	wg.Wait()
	if n := released.Load(); n != 1 {
		t.Errorf("Released was called %d times once the VM came back, want 1", n)
	}
}

// Released runs once, when a persistent environment lets go of its VM, and
// Retained reports what the VM said after the last run.
func TestReleasedAndRetained(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	b := newFake(t, Capabilities{}, func() *fakeVM { return &fakeVM{retained: 5 << 20} })
	var released atomic.Int64
	env, err := b.NewEnv(context.Background(), EnvOptions{Persistent: true, Released: func() { released.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := env.Retained(); got != 0 {
		t.Fatalf("retained %d before any run", got)
	}
	for range 2 {
		if res := env.Run(context.Background(), &Job{Deadline: time.Now().Add(10 * time.Second)}); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if got := env.Retained(); got != 5<<20 {
		t.Fatalf("retained %d, want 5 MiB", got)
	}
	if n := released.Load(); n != 0 {
		t.Fatalf("Released called %d times while the environment keeps its VM", n)
	}
	env.Close()
	env.Close()
	if n := released.Load(); n != 1 {
		t.Fatalf("Released called %d times after Close, want 1", n)
	}
}

// At most Capabilities.MaxAbandoned abandoned runs may keep their VM busy:
// past it a run is refused at once with OVERLOADED, and once one of them
// comes back runs are accepted again.
func TestAbandonedBound(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the engine closes (cleanups run last first)
	block := make(chan struct{})
	var mu sync.Mutex
	var vms []*fakeVM
	b := newFake(t, Capabilities{Grace: time.Millisecond, MaxAbandoned: 1}, func() *fakeVM {
		mu.Lock()
		defer mu.Unlock()
		v := &fakeVM{block: block}
		if len(vms) > 0 {
			v = &fakeVM{} // the later programs end at once
		}
		vms = append(vms, v)
		return v
	})
	run := func() Result {
		env, err := b.NewEnv(context.Background(), EnvOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer env.Close()
		// tools in the script: the run goes to a worker, so it can be abandoned.
		return env.Run(context.Background(), &Job{Script: "tools", Deadline: time.Now().Add(time.Millisecond)})
	}
	if res := run(); res.Err == nil || res.Err.Code != errs.CodeTimeout {
		t.Fatalf("the stuck run: %v, want TIMEOUT", res.Err)
	}
	if n := b.Abandoned(); n != 1 {
		t.Fatalf("Abandoned() = %d, want 1", n)
	}
	res := run()
	if res.Err == nil || res.Err.Code != errs.CodeOverloaded || !strings.Contains(res.Err.Message, "retry") {
		t.Fatalf("a run at the bound: %v, want OVERLOADED saying to retry", res.Err)
	}
	close(block)
	for b.Abandoned() != 0 {
		time.Sleep(time.Millisecond)
	}
	if res := run(); res.Err != nil && res.Err.Code == errs.CodeOverloaded {
		t.Fatalf("after the abandoned run came back: %v", res.Err)
	}
}
