// Package enginetest is the conformance suite every JavaScript engine of
// code_run passes. It drives an engine only through package engine's
// interface and prepares programs with package source, exactly as the
// runtime does, so one table checks goja and QuickJS alike.
//
// Use it from an engine's tests:
//
//	func TestConformance(t *testing.T) {
//		enginetest.Run(t, func(t *testing.T) engine.Engine {
//			e, err := New(Options{})
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { e.Close() })
//			return e
//		})
//	}
//
// The slowest hostile programs are skipped under -short. Most cases are
// data, in testdata/*.txtar: see data.go for the format and -update.
package enginetest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/source"
	"github.com/codemode/codemode/tools/errs"
)

// ScriptName is the Job.Name the suite runs programs under.
const ScriptName = "program.js"

// Grace bounds how long past its deadline a hostile program may take to end.
// It covers the engine's own grace for uninterruptible built-ins plus
// scheduling noise on a loaded 2-core CI machine.
const Grace = 1500 * time.Millisecond

// SuiteMemoryLimit is the memory budget of the suite's memory bombs: small,
// so the suite stays fast and light.
const SuiteMemoryLimit = 64 << 20

// Case is one program and what it must produce. Exactly one of Want,
// WantCode is normally set; Want nil with WantCode "" means "returns no
// value".
type Case struct {
	Name string
	Code string
	// Want is the expected return value, compared as JSON.
	Want any
	// WantCode is the expected error code; WantCodes allows several.
	WantCode  errs.Code
	WantCodes []errs.Code
	// WantMsg must appear in the error message (case-insensitive).
	WantMsg string
	// WantLogs are the console lines, "level: text", in order.
	WantLogs []string
	// WantLine and WantColumn are the error position, when non-zero.
	WantLine, WantColumn int
	// Timeout is the run's deadline; if zero, 5s.
	Timeout time.Duration
	// MemoryLimit is EnvOptions.MemoryLimit; if zero, SuiteMemoryLimit.
	MemoryLimit int64
	// Hostile cases must end within Timeout+Grace, and a fresh environment
	// must run a program fine afterwards.
	Hostile bool
	// Slow cases are skipped under -short.
	Slow bool
	// Interruptible cases must be stopped by the engine within the grace
	// period, not abandoned with a built-in still running.
	Interruptible bool
	// Check runs extra assertions on the outcome.
	Check func(t *testing.T, o *Outcome)
}

// Step is one program of a persistent-environment scenario.
type Step struct {
	Code     string
	Want     any
	WantCode errs.Code
	// WantGlobals must all be in Env.Globals() after the step, and
	// WantNoGlobals none of them.
	WantGlobals, WantNoGlobals []string
}

// Scenario is a sequence of programs run in one persistent environment.
type Scenario struct {
	Name  string
	Steps []Step
}

// Outcome is what one run produced.
type Outcome struct {
	Value   json.RawMessage
	Err     *errs.Error
	Logs    []string
	Elapsed time.Duration
	Tools   *FakeTools
	// Abandoned: Run gave the VM up at its hard stop (Result.Abandoned).
	Abandoned bool
}

// Run runs the whole suite: the archives of testdata/ (see data.go) with
// the Go cases of the same groups, the persistent scenarios and the
// special tests. newEngine is called once per top-level group; it should
// register the engine's Close with t.Cleanup.
func Run(t *testing.T, newEngine func(t *testing.T) engine.Engine) {
	groups, err := loadGroups(dataDir())
	if err != nil {
		t.Fatalf("conformance archives: %v", err)
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			eng := newEngine(t)
			runGroup(t, g, func(t *testing.T, c Case) *Outcome { return runCase(t, eng, c, !*update) })
			for _, c := range goCases[g.name] {
				t.Run(c.Name, func(t *testing.T) { runCase(t, eng, c, true) })
			}
		})
	}
	t.Run("persistent", func(t *testing.T) {
		eng := newEngine(t)
		for _, sc := range scenarios {
			t.Run(sc.Name, func(t *testing.T) { runScenario(t, eng, sc) })
		}
	})
	t.Run("special", func(t *testing.T) {
		eng := newEngine(t)
		for _, s := range specialTests {
			t.Run(s.name, func(t *testing.T) { s.f(t, eng) })
		}
	})
}

// deadlineOf is the deadline case c runs with: its own, or, under the race
// detector, three times it when the case must end some other way than
// TIMEOUT (a value, or a memory bomb's MEMORY_LIMIT: the detector makes
// goja's interpreter 5-10x slower, so on a loaded machine a bomb reached
// its 10 s deadline before its budget, and the case tested the machine's
// speed rather than the guard). A case that may end with TIMEOUT keeps its
// deadline, which its outcome is about.
func deadlineOf(c Case) time.Duration {
	if RaceSlowdown == 1 || c.Timeout == 0 || c.WantCode == errs.CodeTimeout || slices.Contains(c.WantCodes, errs.CodeTimeout) {
		return c.Timeout
	}
	return c.Timeout * RaceSlowdown
}

// runCase runs one case and, if check, checks its outcome. It returns
// nil when the case is skipped.
func runCase(t *testing.T, eng engine.Engine, c Case, check bool) *Outcome {
	if c.Slow && testing.Short() {
		t.Skip("slow hostile program; skipped under -short")
	}
	timeout := deadlineOf(c)
	o := Exec(t, eng, c.Code, ExecOptions{Timeout: timeout, MemoryLimit: c.MemoryLimit})
	if o.Err != nil {
		t.Logf("%s in %v: %s %v", o.Err.Code, o.Elapsed.Round(time.Millisecond), o.Err.Message, o.Err.Info)
	}
	if check {
		checkCase(t, c, o)
	}
	if c.Hostile {
		limit := timeout
		if limit == 0 {
			limit = 5 * time.Second
		}
		if o.Elapsed > limit+Grace {
			t.Errorf("took %v, want at most %v (deadline %v + grace %v)", o.Elapsed, limit+Grace, limit, Grace)
		}
		// An interruptible case's VM stops by itself: if the run was
		// abandoned all the same (a loaded machine can miss the grace
		// period), its VM must be done within seconds, not the minutes an
		// uninterruptible built-in would take.
		wait := time.Minute
		if c.Interruptible {
			wait = 5 * time.Second
		}
		waitAbandoned(t, eng, wait)
		after := Exec(t, eng, "return 1 + 1", ExecOptions{})
		if after.Err != nil || string(after.Value) != "2" {
			t.Errorf("next program on a fresh environment: got %s, %v; want 2", after.Value, after.Err)
		}
	}
	return o
}

func checkCase(t *testing.T, c Case, o *Outcome) {
	t.Helper()
	codes := c.WantCodes
	if c.WantCode != "" {
		codes = append(codes, c.WantCode)
	}
	if len(codes) > 0 {
		if o.Err == nil {
			t.Fatalf("got value %s, want error %v", o.Value, codes)
		}
		ok := false
		for _, code := range codes {
			ok = ok || o.Err.Code == code
		}
		if !ok {
			t.Errorf("got error %s (%s), want code %v", o.Err.Code, o.Err.Message, codes)
		}
	} else if o.Err != nil {
		t.Fatalf("got error %s: %s, want value %v", o.Err.Code, o.Err.Message, c.Want)
	} else {
		checkValue(t, o.Value, c.Want)
	}
	if c.WantMsg != "" && (o.Err == nil || !strings.Contains(strings.ToLower(o.Err.Message), strings.ToLower(c.WantMsg))) {
		msg := "<no error>"
		if o.Err != nil {
			msg = o.Err.Message
		}
		t.Errorf("got message %q, want it to contain %q", msg, c.WantMsg)
	}
	if c.WantLogs != nil && !reflect.DeepEqual(o.Logs, c.WantLogs) {
		t.Errorf("got logs %q, want %q", o.Logs, c.WantLogs)
	}
	if c.WantLine != 0 {
		if o.Err == nil {
			t.Errorf("got no error, want one at line %d", c.WantLine)
		} else if got := infoInt(o.Err, "line"); got != c.WantLine {
			t.Errorf("got line %d (info %v), want %d", got, o.Err.Info, c.WantLine)
		}
	}
	if c.WantColumn != 0 && o.Err != nil {
		if got := infoInt(o.Err, "column"); got != c.WantColumn {
			t.Errorf("got column %d, want %d", got, c.WantColumn)
		}
	}
	if c.Check != nil {
		c.Check(t, o)
	}
}

func infoInt(e *errs.Error, key string) int {
	switch v := e.Info[key].(type) {
	case int:
		return v
	case float64:
		return int(v)
	case int64:
		return int(v)
	}
	return 0
}

func checkValue(t *testing.T, got json.RawMessage, want any) {
	t.Helper()
	if want == nil {
		if got != nil {
			t.Errorf("got value %s, want none (undefined)", got)
		}
		return
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("value %q is not JSON: %v", got, err)
	}
	wb, _ := json.Marshal(want)
	_ = json.Unmarshal(wb, &w)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got value %s, want %s", got, wb)
	}
}

// ExecOptions configures Exec.
type ExecOptions struct {
	Timeout     time.Duration // if zero, 5s
	MemoryLimit int64         // if zero, SuiteMemoryLimit
	Env         engine.Env    // run in this environment instead of a new per-call one
	Persistent  bool          // prepare in persistent mode (implied by Env)
	Tools       *FakeTools    // if nil, a new FakeTools
}

// Exec prepares code and runs it in a fresh per-call environment (or
// opts.Env), collecting logs.
func Exec(t testing.TB, eng engine.Engine, code string, opts ExecOptions) *Outcome {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = SuiteMemoryLimit
	}
	ft := opts.Tools
	if ft == nil {
		ft = NewFakeTools()
	}
	o := &Outcome{Tools: ft}
	persistent := opts.Persistent || opts.Env != nil
	s, err := source.Prepare(code, source.Options{Persistent: persistent, Evaluator: Evaluator(eng)})
	if err != nil {
		o.Err = errs.AsError(err)
		return o
	}
	ctx := context.Background()
	env := opts.Env
	if env == nil {
		env, err = eng.NewEnv(ctx, engine.EnvOptions{MemoryLimit: opts.MemoryLimit})
		if err != nil {
			t.Fatalf("NewEnv: %v", err)
		}
		defer env.Close()
	}
	var mu sync.Mutex
	job := &engine.Job{
		Script:      s.JS,
		Name:        ScriptName,
		LineOffset:  s.LineOffset,
		SourceLines: strings.Count(code, "\n") + 1,
		EndColumn:   len(code) - strings.LastIndexByte(code, '\n'),
		Tools:       ft.Names(),
		Call:        ft.Call,
		Log: func(level, text string) {
			mu.Lock()
			defer mu.Unlock()
			ft.logs.Add(1)
			if len(o.Logs) < 1000 {
				o.Logs = append(o.Logs, level+": "+text)
			}
		},
		Deadline: time.Now().Add(opts.Timeout),
		MaxCalls: int(cmp.Or(ft.Limit, 1000)), // as the runtime sets it
	}
	ft.logsSeen = func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), o.Logs...)
	}
	start := time.Now()
	res := env.Run(ctx, job)
	o.Elapsed = time.Since(start)
	o.Value, o.Err, o.Abandoned = res.Value, res.Err, res.Abandoned
	return o
}

// FakeTools is the suite's tool registry. Its tools:
//
//   - echo: resolves to its arguments.
//   - noop: resolves to nothing (undefined).
//   - name-echo tools "my-tool.v2" and "mcp__fake__ticker": resolve to their name.
//   - fail: rejects with DENIED "denied by policy".
//   - slow: waits until its ctx is cancelled, then reports ctx's error.
//   - barrier: waits until Barrier calls are in flight at once (or ctx ends).
//   - seen: resolves to the console lines logged so far.
//
// Any other name rejects with UNKNOWN_TOOL and a suggestion, like the
// registry. After Limit calls in one run, calls reject with SUBCALL_LIMIT.
type FakeTools struct {
	Limit   int64 // if zero, 1000
	Barrier int64 // if zero, 2
	// Listed are names Names lists besides the tools above (they reject
	// with UNKNOWN_TOOL when called): a run whose list has them.
	Listed []string

	calls    atomic.Int64
	logs     atomic.Int64
	inBar    atomic.Int64
	barOnce  sync.Once
	barDone  chan struct{}
	logsSeen func() []string

	// SlowEnded receives ctx.Err() of each slow call when it returns.
	SlowEnded chan error
}

// StubbornFor is how long the fake tool "stubborn" sleeps, ignoring its
// ctx. It is callable (tools.stubborn) but not listed in Names.
const StubbornFor = time.Second

// NewFakeTools returns a fresh fake registry.
func NewFakeTools() *FakeTools {
	return &FakeTools{barDone: make(chan struct{}), SlowEnded: make(chan error, 16)}
}

// Names is the tool list bound as Job.Tools.
func (f *FakeTools) Names() []string {
	return append([]string{"barrier", "echo", "fail", "mcp__fake__ticker", "my-tool.v2", "noop", "seen", "slow"}, f.Listed...)
}

// Calls is the number of calls made so far.
func (f *FakeTools) Calls() int64 { return f.calls.Load() }

// LogCount is the number of console lines received.
func (f *FakeTools) LogCount() int64 { return f.logs.Load() }

// Call implements Job.Call.
func (f *FakeTools) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	limit := f.Limit
	if limit == 0 {
		limit = 1000
	}
	if n := f.calls.Add(1); n > limit {
		return nil, &errs.Error{Code: errs.CodeSubcallLimit, Message: fmt.Sprintf("the program made more than %d nested calls", limit)}
	}
	if !json.Valid(args) {
		return nil, &errs.Error{Code: errs.CodeInvalidArguments, Message: "arguments are not JSON"}
	}
	switch name {
	case "echo":
		return args, nil
	case "noop":
		return nil, nil
	case "my-tool.v2", "mcp__fake__ticker":
		return json.Marshal(name)
	case "fail":
		return nil, &errs.Error{Code: errs.CodeDenied, Message: "denied by policy"}
	case "stubborn": // not in Names: a tool that ignores cancellation
		time.Sleep(StubbornFor)
		return json.Marshal("late")
	case "slow":
		<-ctx.Done()
		f.SlowEnded <- ctx.Err()
		return nil, ctx.Err()
	case "barrier":
		want := f.Barrier
		if want == 0 {
			want = 2
		}
		if f.inBar.Add(1) >= want {
			f.barOnce.Do(func() { close(f.barDone) })
		}
		select {
		case <-f.barDone:
			return json.Marshal("ok")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "seen":
		if f.logsSeen == nil {
			return json.Marshal([]string{})
		}
		return json.Marshal(f.logsSeen())
	}
	return nil, &errs.Error{
		Code:    errs.CodeUnknownTool,
		Message: fmt.Sprintf("unknown tool %q; did you mean \"echo\"?", name),
		Info:    map[string]any{"suggestions": []any{"echo"}},
	}
}

func runScenario(t *testing.T, eng engine.Engine, sc Scenario) {
	env, err := eng.NewEnv(context.Background(), engine.EnvOptions{Persistent: true, MemoryLimit: SuiteMemoryLimit})
	if err != nil {
		t.Fatalf("NewEnv: %v", err)
	}
	defer env.Close()
	for i, st := range sc.Steps {
		o := Exec(t, eng, st.Code, ExecOptions{Env: env})
		if st.WantCode != "" {
			if o.Err == nil || o.Err.Code != st.WantCode {
				t.Fatalf("step %d %q: got %s, %v; want code %s", i+1, st.Code, o.Value, o.Err, st.WantCode)
			}
		} else if o.Err != nil {
			t.Fatalf("step %d %q: got error %s: %s", i+1, st.Code, o.Err.Code, o.Err.Message)
		} else {
			checkValue(t, o.Value, st.Want)
		}
		if len(st.WantGlobals) > 0 {
			got := env.Globals()
			for _, g := range st.WantGlobals {
				if !contains(got, g) {
					t.Errorf("step %d: Globals() = %v, want it to contain %q", i+1, got, g)
				}
			}
			for _, g := range append([]string{"tools", "console"}, st.WantNoGlobals...) {
				if contains(got, g) {
					t.Errorf("step %d: Globals() = %v, want no built-in %q", i+1, got, g)
				}
			}
		}
		if !env.Usable() {
			t.Fatalf("step %d: environment not usable after a normal run", i+1)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var errTimeout = errors.New("timed out")

// recv waits for one value, failing after d: the event the test waits for
// is a real signal, d is only the bound on a broken engine.
func recv[T any](ch <-chan T, d time.Duration) (T, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case v := <-ch:
		return v, nil
	case <-t.C:
		var zero T
		return zero, errTimeout
	}
}

// Evaluator is the parser that decides an engine's syntax, as the runtime
// chooses it: QuickJS's for wazero, goja's otherwise.
func Evaluator(eng engine.Engine) source.Evaluator {
	if n, ok := eng.(interface{ Name() string }); ok && n.Name() == "wazero" {
		return source.EvaluatorQuickJS
	}
	return source.EvaluatorGoja
}

// waitAbandoned waits (up to wait) until no abandoned run of eng keeps its
// VM busy, so that the next case is not refused with OVERLOADED (the
// engine's bound on them) nor slowed by a core still busy.
func waitAbandoned(t *testing.T, eng engine.Engine, wait time.Duration) {
	b, ok := eng.(interface{ Abandoned() int })
	if !ok {
		return
	}
	for end := time.Now().Add(wait); b.Abandoned() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Errorf("%d abandoned runs still busy %v after the answer: a built-in kept running past the deadline", b.Abandoned(), wait)
			return
		}
	}
}
