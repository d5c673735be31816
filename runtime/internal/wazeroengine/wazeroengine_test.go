package wazeroengine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/enginetest"
	"github.com/codemode/codemode/runtime/internal/quickjs"
	"github.com/codemode/codemode/tools/errs"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// script wraps a program body the way package source does for per-call
// programs: line 1 is the wrapper, so LineOffset is 1.
func script(body string) string { return "(async function(){\n" + body + "\n})()" }

// runBody runs body in a fresh per-call environment of e.
func runBody(t testing.TB, e *engine.Base, body string, timeout time.Duration, opts engine.EnvOptions, call func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)) (engine.Result, time.Duration) {
	t.Helper()
	env, err := e.NewEnv(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if call == nil {
		call = echo
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	res := env.Run(ctx, &engine.Job{Script: script(body), Name: "program.js", LineOffset: 1, Tools: []string{"echo"}, Call: call})
	return res, time.Since(start)
}

func echo(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	return args, nil
}

func code(r engine.Result) errs.Code {
	if r.Err == nil {
		return ""
	}
	return r.Err.Code
}

// vmHWM is the process's peak resident set size (Linux), or 0.
func vmHWM(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestMemoryBombsAtDefaultLimit: with the default 256 MiB cap every memory
// bomb ends as MEMORY_LIMIT before its deadline (the conformance suite runs
// them at 64 MiB), and the process's peak RSS stays near one cap: the wasm
// memory is reserved, not copied, and unmapped when the instance closes.
func TestMemoryBombsAtDefaultLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 256 MiB per case")
	}
	e := newTestEngine(t, Options{PoolSize: 1})
	bombs := []struct{ name, code string }{
		{"array", "const a = []\nfor (;;) a.push(new Array(1000).fill(1))"},
		{"string", "let s = 'ab'\nconst keep = []\nfor (;;) { s = s + s; s.charCodeAt(s.length - 1); keep.push(s) }"},
		{"object", "const o = {}\nfor (let i = 0; ; i++) o['k' + i] = {i, s: 'v' + i}"},
		{"typed array", "const a = []\nfor (;;) a.push(new Float64Array(1 << 17))"},
		{"one huge buffer", "return new ArrayBuffer(1 << 30).byteLength"},
		{"map", "const m = new Map()\nfor (let i = 0; ; i++) m.set(i, [i])"},
	}
	// Long enough for a loaded 2-core machine (the object bomb took over
	// 20 s at a load of 14): the test is about the code, not the speed.
	const deadline = 60 * time.Second
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			res, took := runBody(t, e, b.code, deadline, engine.EnvOptions{}, nil)
			if code(res) != errs.CodeMemoryLimit {
				t.Fatalf("got %v (%s), want MEMORY_LIMIT", res.Err, res.Value)
			}
			if !strings.Contains(res.Err.Message, "256 MiB") {
				t.Errorf("got message %q, want it to name the 256 MiB limit", res.Err.Message)
			}
			if took > deadline {
				t.Errorf("took %v, want less than the deadline %v", took, deadline)
			}
			t.Logf("MEMORY_LIMIT after %v", took)
			if after, _ := runBody(t, e, "return 1 + 1", 5*time.Second, engine.EnvOptions{}, nil); string(after.Value) != "2" {
				t.Errorf("next program: got %s %v, want 2", after.Value, after.Err)
			}
		})
	}
	// The Go test binary itself takes some tens of MiB; one 256 MiB wasm
	// memory at a time must explain the rest.
	if hwm := vmHWM(t); hwm > 0 && !raceEnabled {
		t.Logf("peak RSS %d MiB", hwm>>20)
		if hwm > (256+200)<<20 {
			t.Errorf("peak RSS %d MiB, want at most 456 MiB (cap 256 MiB + 200 MiB for the process)", hwm>>20)
		}
	}
}

// TestHardStop: built-ins that never reach QuickJS's interrupt handler are
// stopped by the stop flag a grace period after the deadline; the instance
// is discarded and the next environment works.
func TestHardStop(t *testing.T) {
	e := newTestEngine(t, Options{Grace: 100 * time.Millisecond})
	for _, body := range []string{
		"return String(10n ** 300000n).length", // about 5 s in one built-in
		"const a = Array.from({length: 1e6}, (_, i) => -i)\nfor (;;) a.slice().sort()",
	} {
		t.Run(body[:20], func(t *testing.T) {
			env, err := e.NewEnv(context.Background(), engine.EnvOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			start := time.Now()
			res := env.Run(context.Background(), &engine.Job{Script: script(body), Name: "program.js", LineOffset: 1, Deadline: start.Add(300 * time.Millisecond)})
			took := time.Since(start)
			if code(res) != errs.CodeTimeout {
				t.Fatalf("got %v %s, want TIMEOUT", res.Err, res.Value)
			}
			if took > 300*time.Millisecond+100*time.Millisecond+500*time.Millisecond {
				t.Errorf("took %v, want about deadline 300ms + grace 100ms", took)
			}
			if env.Usable() {
				t.Error("environment usable after a hard stop, want it discarded")
			}
			if after, _ := runBody(t, e, "return 1 + 1", 5*time.Second, engine.EnvOptions{}, nil); string(after.Value) != "2" {
				t.Errorf("next program: got %s %v, want 2", after.Value, after.Err)
			}
		})
	}
}

// TestCloseDuringRun: Close from another goroutine aborts a busy program
// and waits for it.
func TestCloseDuringRun(t *testing.T) {
	e := newTestEngine(t, Options{})
	for _, body := range []string{
		"await tools.echo({})\nfor (;;) {}",           // interrupted by the handler
		"await tools.echo({})\nfor (;;) await null",   // between jobs
		"await tools.echo({})\nawait tools.block({})", // waiting for a call
	} {
		t.Run(body, func(t *testing.T) {
			env, err := e.NewEnv(context.Background(), engine.EnvOptions{})
			if err != nil {
				t.Fatal(err)
			}
			started := make(chan struct{})
			var once sync.Once
			call := func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
				if name == "block" {
					<-ctx.Done()
					return nil, ctx.Err()
				}
				once.Do(func() { close(started) })
				return args, nil
			}
			done := make(chan engine.Result, 1)
			go func() {
				done <- env.Run(context.Background(), &engine.Job{Script: script(body), Name: "program.js", LineOffset: 1, Call: call})
			}()
			<-started
			if err := env.Close(); err != nil {
				t.Fatal(err)
			}
			res := <-done
			if code(res) != errs.CodeCancelled {
				t.Errorf("got %v, want CANCELLED", res.Err)
			}
			if env.Usable() {
				t.Error("closed environment reports usable")
			}
		})
	}
}

// TestPoolReusesCleanInstances: a released per-call instance gets a fresh
// context and serves the next environment, without the previous program's
// globals; one that timed out is not reused.
func TestPoolReusesCleanInstances(t *testing.T) {
	filled := make(chan struct{}, 64)
	e := newTestEngineWith(t, Options{PoolSize: 1}, filled)
	<-filled // the pool holds one warm instance

	envA, err := e.NewEnv(context.Background(), engine.EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	<-filled // the pool refilled behind envA
	instA := instOf(envA)
	res := envA.Run(context.Background(), &engine.Job{Script: script("globalThis.leak = 1; return 1"), Name: "program.js", LineOffset: 1})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	envA.Close() // the pool is full: instA waits in the recycle queue
	<-filled

	envB, _ := e.NewEnv(context.Background(), engine.EnvOptions{}) // takes the warm one
	defer envB.Close()
	<-filled // the filler gave instA a fresh context and pooled it
	envC, err := e.NewEnv(context.Background(), engine.EnvOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer envC.Close()
	if instOf(envC) != instA {
		t.Fatal("the released clean instance was not reused")
	}
	res = envC.Run(context.Background(), &engine.Job{Script: script("return typeof leak"), Name: "program.js", LineOffset: 1})
	if string(res.Value) != `"undefined"` {
		t.Errorf("reused instance sees the old program's global: got %s %v, want \"undefined\"", res.Value, res.Err)
	}

	// A timed-out instance is closed, not pooled.
	envD, _ := e.NewEnv(context.Background(), engine.EnvOptions{})
	instD := instOf(envD)
	res = envD.Run(context.Background(), &engine.Job{Script: script("for (;;) {}"), Name: "program.js", LineOffset: 1, Deadline: time.Now().Add(50 * time.Millisecond)})
	if code(res) != errs.CodeTimeout {
		t.Fatalf("got %v, want TIMEOUT", res.Err)
	}
	envD.Close()
	if instD.Broken() == nil {
		t.Error("the timed-out instance is still open, want it closed")
	}
}

// TestConcurrentEnvs hammers the pool and the bindings from several
// goroutines (run it with -race).
func TestConcurrentEnvs(t *testing.T) {
	e := newTestEngine(t, Options{PoolSize: 2})
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 15; i++ {
				res, _ := runBody(t, e, fmt.Sprintf("const r = await Promise.all([tools.echo({n: %d}), tools.echo({n: 1})])\nreturn r[0].n + r[1].n", i), 10*time.Second, engine.EnvOptions{}, nil)
				if res.Err != nil || string(res.Value) != strconv.Itoa(i+1) {
					errs <- fmt.Errorf("run %d: got %s %v, want %d", i, res.Value, res.Err, i+1)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPersistentGlobals: without the source package's bookkeeping the
// engine reports the globals programs added.
func TestPersistentGlobals(t *testing.T) {
	e := newTestEngine(t, Options{})
	env, err := e.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	for _, src := range []string{"var zeta = 1; (async () => {})()", "globalThis.alpha = 2; function beta() {}; (async () => {})()"} {
		if res := env.Run(context.Background(), &engine.Job{Script: src, Name: "program.js"}); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if got, want := strings.Join(env.Globals(), ","), "alpha,beta,zeta"; got != want {
		t.Errorf("got globals %s, want %s", got, want)
	}
	if !env.Usable() {
		t.Error("persistent environment not usable after two programs")
	}
}

// TestMemoryLimitPerEnv: EnvOptions.MemoryLimit caps exactly that
// environment.
func TestMemoryLimitPerEnv(t *testing.T) {
	e := newTestEngine(t, Options{})
	res, _ := runBody(t, e, "return new Uint8Array(40 << 20).length", 5*time.Second, engine.EnvOptions{MemoryLimit: 32 << 20}, nil)
	if code(res) != errs.CodeMemoryLimit || !strings.Contains(res.Err.Message, "32 MiB") {
		t.Errorf("32 MiB env allocating 40 MiB: got %v %s, want MEMORY_LIMIT naming 32 MiB", res.Err, res.Value)
	}
	res, _ = runBody(t, e, "return new Uint8Array(40 << 20).length", 5*time.Second, engine.EnvOptions{MemoryLimit: 64 << 20}, nil)
	if string(res.Value) != strconv.Itoa(40<<20) {
		t.Errorf("64 MiB env allocating 40 MiB: got %s %v, want success", res.Value, res.Err)
	}
}

// TestMaxMemoryBoundsEnvLimits: a MemoryLimit above Options.MaxMemory
// (each instance's address space reservation) acts as MaxMemory, and the
// error says so.
func TestMaxMemoryBoundsEnvLimits(t *testing.T) {
	e := newTestEngine(t, Options{PoolSize: -1, MaxMemory: 32 << 20})
	res, _ := runBody(t, e, "return new Uint8Array(40 << 20).length", 5*time.Second, engine.EnvOptions{MemoryLimit: 2 << 30}, nil)
	if code(res) != errs.CodeMemoryLimit || !strings.Contains(res.Err.Message, "32 MiB") {
		t.Fatalf("got %s %v", res.Value, res.Err)
	}
	res, _ = runBody(t, e, "return new Uint8Array(8 << 20).length", 5*time.Second, engine.EnvOptions{MemoryLimit: 2 << 30}, nil)
	if res.Err != nil || string(res.Value) != "8388608" {
		t.Fatalf("got %s %v", res.Value, res.Err)
	}
}

// TestCompactKeepsState: a persistent environment compacted while idle
// (call stacks dropped, pages given back) runs on with its globals.
func TestCompactKeepsState(t *testing.T) {
	e := newTestEngine(t, Options{PoolSize: -1, CompactAfter: time.Millisecond})
	env, err := e.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	o := enginetest.Exec(t, e, "globalThis.acc = []; globalThis.big = 'z'.repeat(1 << 20); return 0", enginetest.ExecOptions{Env: env})
	if o.Err != nil {
		t.Fatal(o.Err)
	}
	for k := 1; k <= 5; k++ {
		time.Sleep(20 * time.Millisecond) // compacted meanwhile
		o := enginetest.Exec(t, e, "acc.push(acc.length + ':' + big.length); return acc.join()", enginetest.ExecOptions{Env: env})
		want := ""
		for j := 0; j < k; j++ {
			if j > 0 {
				want += ","
			}
			want += strconv.Itoa(j) + ":1048576"
		}
		if o.Err != nil || string(o.Value) != strconv.Quote(want) {
			t.Fatalf("run %d: got %s %v, want %q", k, o.Value, o.Err, want)
		}
	}
}

func TestMissingArtifact(t *testing.T) {
	_, err := New(Options{ArtifactDir: t.TempDir()})
	if !errors.Is(err, quickjs.ErrArtifactMissing) || !strings.Contains(err.Error(), quickjs.FetchCommand) {
		t.Errorf("got %v, want ErrArtifactMissing naming %q", err, quickjs.FetchCommand)
	}
}

// TestReusedInstancesArePristine: per-call programs that pollute built-ins
// and grow the memory leave nothing for the next program of the same
// instance (restored from the pristine snapshot, or rebuilt).
func TestReusedInstancesArePristine(t *testing.T) {
	e := newTestEngine(t, Options{PoolSize: 1})
	seen := map[any]int{}
	for k := 0; k < 12; k++ {
		en, err := e.NewEnv(context.Background(), engine.EnvOptions{})
		if err != nil {
			t.Fatal(err)
		}
		seen[instOf(en)]++
		res := en.Run(context.Background(), &engine.Job{Name: "program.js", LineOffset: 1, Deadline: time.Now().Add(10 * time.Second),
			Script: script(`const before = typeof [].polluted + " " + typeof polluted + " " + typeof big
Array.prototype.polluted = 1; globalThis.polluted = 1; globalThis.big = "x".repeat(24 << 20)
return before`)})
		en.Close()
		if string(res.Value) != `"undefined undefined undefined"` {
			t.Fatalf("program %d: got %s %v, want a pristine context", k, res.Value, res.Err)
		}
	}
	reused := false
	for _, n := range seen {
		reused = reused || n > 1
	}
	if !reused {
		t.Error("no instance served two programs; the test checks nothing")
	}
}

// instOf is the instance behind an environment.
func instOf(e engine.Env) *quickjs.Instance { return engine.VMOf(e).(*vm).inst }

// TestStackBytesShareOfBudget pins the C stack's bound: wazero's own stack,
// outside the memory cap, grows 15–30 times as fast as QuickJS's C stack,
// so the C stack is held to a hundredth of the budget (the default budget
// keeps its 10,000 frames).
func TestStackBytesShareOfBudget(t *testing.T) {
	for _, c := range []struct {
		depth int
		limit int64
		want  uint32
	}{
		{10000, 256 << 20, 10000 * bytesPerFrame},
		{10000, 64 << 20, 64 << 20 / hostStackShare},
		{10000, 1 << 30, 10000 * bytesPerFrame},
		{100000, 1 << 30, 4 << 20},
		{10000, 1 << 20, 64 << 10},
	} {
		if got := stackBytes(c.depth, c.limit); got != c.want {
			t.Errorf("stackBytes(%d, %d) = %d, want %d", c.depth, c.limit, got, c.want)
		}
	}
}

// TestSilentConsole: once a run's log budget is spent, console's lines stop
// in the wasm (Go is asked once, not per line), the methods stay the same
// functions, and the next run of a persistent environment logs again.
func TestSilentConsole(t *testing.T) {
	e := newTestEngine(t, Options{})
	env, err := e.NewEnv(context.Background(), engine.EnvOptions{Persistent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	run := func(body string, budget int) (string, []string, int) {
		t.Helper()
		var lines []string
		asked := 0
		res := env.Run(context.Background(), &engine.Job{
			Script:   "(async () => {" + body + "})()",
			Name:     "program.js",
			Deadline: time.Now().Add(10 * time.Second),
			Log:      func(level, text string) { lines = append(lines, level+": "+text) },
			LogSpent: func() bool { asked++; return len(lines) >= budget },
		})
		if res.Err != nil {
			t.Fatalf("%s: %v", body, res.Err)
		}
		return string(res.Value), lines, asked
	}
	v, lines, asked := run(`globalThis.orig = console.log;
		for (let i = 0; i < 1000; i++) { console.log("x", i); console.warn("y"); console.error({i}) }
		return console.log === orig`, 2)
	if v != "true" || len(lines) != 2 || asked > 4 {
		t.Fatalf("spent: got %s, %q, LogSpent asked %d times", v, lines, asked)
	}
	v, lines, _ = run(`console.log("again"); console.info("and"); return console.log === orig`, 10)
	if v != "true" || strings.Join(lines, "|") != "log: again|info: and" {
		t.Fatalf("next run: got %s, %q", v, lines)
	}
}
