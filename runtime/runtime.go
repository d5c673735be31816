// Package runtime runs code-mode programs: JavaScript or TypeScript bodies
// of an async function, in a sandboxed engine, with one budget of limits.
//
// It is engine-neutral. The engines (goja in process, QuickJS under wazero)
// live under internal/ and implement one small interface; this package adds
// what does not depend on the engine: the limits on nested calls and
// output, call records, and persistent environments with their retention.
//
// # Running a program
//
//	rt, _ := runtime.New(runtime.Options{}) // wazero; Engine: EngineGoja for goja
//	defer rt.Close()
//	out := rt.Run(ctx, runtime.Request{Code: "return 1 + 1"})
//	// out.Value == `2`
//
// Nested calls go through Request.Call, which package ptc implements on
// top of the tool registry.
//
// # Environments
//
// A per-call program gets a fresh environment from a warm pool. A
// persistent program runs in the environment of its [Owner]; see
// [Environments] for how owners are obtained and released.
//
// # Memory
//
// Every run and every persistent environment reserves memory from one
// [Governor] per process (a runtime makes its own unless
// [Options.Governor] shares one): a run that does not fit first releases
// idle environments, least recently used first, then is refused with
// OVERLOADED.
//
// The package shares its name with the standard library's runtime; importers
// that need both alias the standard one (goruntime).
package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/runtime/internal/gojaengine"
	"github.com/codemode/codemode/runtime/internal/source"
	"github.com/codemode/codemode/runtime/internal/wazeroengine"
	"github.com/codemode/codemode/tools/errs"
)

// Engine names. [Engines] is the one list of them that config, cmd and
// bench check names against.
const (
	EngineGoja   = "goja"
	EngineWazero = "wazero"
)

// Engines lists the engine names.
func Engines() []string { return []string{EngineGoja, EngineWazero} }

// Mode is where a program's top-level state lives. [Modes] is the one list
// of them.
type Mode string

// The modes.
const (
	// ModePerCall gives every program a fresh environment (the default).
	ModePerCall Mode = "per-call"
	// ModePersistent keeps one environment per (agent, owner): top-level
	// declarations survive between programs like a REPL (see
	// [Environments]).
	ModePersistent Mode = "persistent-in-memory"
)

// Modes lists the modes.
func Modes() []Mode { return []Mode{ModePerCall, ModePersistent} }

// KnownEngine and KnownMode report whether a name is one of the lists'.
func KnownEngine(name string) bool { return slices.Contains(Engines(), name) }

// CheckTimeZone reports whether name is a time zone [Options.TimeZone]
// takes: nil, or an error saying what it wants instead.
func CheckTimeZone(name string) error {
	_, _, err := engine.TimeZone(name)
	return err
}

// KnownMode reports whether m is one of [Modes].
func KnownMode(m Mode) bool { return slices.Contains(Modes(), m) }

// Limits is the one budget every program runs under. A zero field means
// the default given in its comment.
type Limits struct {
	// Timeout is the wall-clock limit of one program. If zero, 30s.
	Timeout time.Duration
	// MaxSubcalls bounds nested calls per run (SUBCALL_LIMIT). If zero, 1000.
	MaxSubcalls int
	// MaxConcurrentSubcalls bounds nested calls in flight. If zero, 8.
	MaxConcurrentSubcalls int
	// MaxLogBytes bounds captured console output; past it output is
	// truncated with a marker (not an error). If zero, 1 MiB.
	MaxLogBytes int
	// MaxResultBytes bounds the JSON return value (RESULT_TOO_LARGE).
	// If zero, 1 MiB.
	MaxResultBytes int
	// MemoryBytes is the memory budget (MEMORY_LIMIT). If zero, 256 MiB.
	// wazero enforces it exactly; goja through a heap watchdog.
	MemoryBytes int64
	// MaxStackDepth bounds the JS call stack (STACK_OVERFLOW). If zero,
	// the engine's default.
	MaxStackDepth int
	// MaxCodeBytes bounds a program's text (PROGRAM_TOO_LARGE), checked
	// before anything parses it; on goja it bounds a string handed to eval
	// or Function too. If zero, 256 KiB.
	MaxCodeBytes int
	// MaxNestingDepth bounds how deeply a program nests (NESTING_TOO_DEEP):
	// brackets, prefix operators, statement heads and operator chains
	// count about one level each. It is checked by a parser whose
	// recursion it bounds, before the engine's own parser and compiler see
	// the program; on goja, strings handed to eval or Function too. If
	// zero, 1000.
	MaxNestingDepth int
}

// WithDefaults returns l with zero fields set to their defaults.
func (l Limits) WithDefaults() Limits { return l.over(defaultLimits) }

// defaultLimits are the documented defaults of Limits (MaxStackDepth's is
// the engine's own).
var defaultLimits = Limits{
	Timeout:               30 * time.Second,
	MaxSubcalls:           1000,
	MaxConcurrentSubcalls: 8,
	MaxLogBytes:           1 << 20,
	MaxResultBytes:        1 << 20,
	MemoryBytes:           256 << 20,
	MaxCodeBytes:          256 << 10,
	MaxNestingDepth:       1000,
}

// over returns l with each field that is not set (zero or negative) taken
// from base: the one merge rule behind defaults and per-request overrides.
func (l Limits) over(base Limits) Limits {
	pick := func(v, b int) int {
		if v > 0 {
			return v
		}
		return b
	}
	if l.Timeout <= 0 {
		l.Timeout = base.Timeout
	}
	if l.MemoryBytes <= 0 {
		l.MemoryBytes = base.MemoryBytes
	}
	l.MaxSubcalls = pick(l.MaxSubcalls, base.MaxSubcalls)
	l.MaxConcurrentSubcalls = pick(l.MaxConcurrentSubcalls, base.MaxConcurrentSubcalls)
	l.MaxLogBytes = pick(l.MaxLogBytes, base.MaxLogBytes)
	l.MaxResultBytes = pick(l.MaxResultBytes, base.MaxResultBytes)
	l.MaxStackDepth = pick(l.MaxStackDepth, base.MaxStackDepth)
	l.MaxCodeBytes = pick(l.MaxCodeBytes, base.MaxCodeBytes)
	l.MaxNestingDepth = pick(l.MaxNestingDepth, base.MaxNestingDepth)
	return l
}

// Options configures a Runtime. The zero value means wazero with default
// limits.
type Options struct {
	// Engine is EngineWazero or EngineGoja. If empty, EngineWazero:
	// programs usually come from a model, and wazero's memory cap and
	// deadline are hard; goja is faster but its memory guard is best
	// effort (see docs/engines.md).
	Engine string
	// Limits is the default budget of every run.
	Limits Limits
	// Logger receives environment evictions and engine warnings. If nil,
	// nothing is logged.
	Logger *slog.Logger
	// CacheDir is where the wazero engine keeps its compilation cache. If
	// empty, <user cache dir>/codemode/wazero; "off" disables it. The
	// QuickJS artifact itself is embedded in the binary;
	// $CODEMODE_QUICKJS_DIR names a directory to load it from instead.
	CacheDir string
	// PoolSize is the number of warm per-call environments. If zero, the
	// engine's default.
	PoolSize int
	// Governor bounds the memory of every run and persistent environment
	// across the runtimes that share it (see [Governor]). If nil, the
	// runtime makes its own with the default budget ([NewGovernor](0));
	// a process with several runtimes should share one.
	Governor *Governor
	// NoGovernor runs without any process-wide bound (tests and
	// benchmarks that measure the engine alone).
	NoGovernor bool
	// MaxAbandonedRuns bounds the programs stopped at their deadline whose
	// engine is still busy in a built-in that cannot be interrupted (goja;
	// wazero stops any code, so its runs are rarely counted): while that
	// many are, new programs fail at once with OVERLOADED. If zero, 2; if
	// negative, no bound.
	MaxAbandonedRuns int
	// TimeZone is the time zone of programs: Date's local time
	// (getHours, toString) and Intl's default (toLocaleString,
	// DateTimeFormat without a timeZone option). An IANA name from Go's
	// database ("Europe/Paris"), an offset ("+05:30") or "UTC". If empty,
	// UTC: programs never learn the host's zone. An unknown zone is New's
	// error (see [CheckTimeZone]).
	TimeZone string
}

// Runtime runs programs. It is safe for concurrent use; Close releases the
// engine's pool.
type Runtime struct {
	opts   Options
	limits Limits
	eng    engine.Engine
	gov    *Governor // nil: no bound
	log    *slog.Logger
	closed atomic.Bool
}

// New creates a runtime with the chosen engine.
func New(opts Options) (*Runtime, error) {
	rt := &Runtime{opts: opts, limits: opts.Limits.WithDefaults(), log: opts.Logger, gov: opts.Governor}
	if rt.gov == nil && !opts.NoGovernor {
		rt.gov = NewGovernor(0)
	}
	if rt.log == nil {
		rt.log = slog.New(slog.DiscardHandler)
	}
	var err error
	switch opts.Engine {
	case EngineGoja:
		rt.eng, err = gojaengine.New(gojaengine.Options{PoolSize: opts.PoolSize, MemoryLimit: rt.limits.MemoryBytes, MaxStackDepth: rt.limits.MaxStackDepth, MaxAbandoned: opts.MaxAbandonedRuns, TimeZone: opts.TimeZone})
	case "", EngineWazero:
		rt.opts.Engine = EngineWazero
		rt.eng, err = wazeroengine.New(wazeroengine.Options{PoolSize: opts.PoolSize, CacheDir: opts.CacheDir, MemoryLimit: rt.limits.MemoryBytes, MaxStackDepth: rt.limits.MaxStackDepth, MaxAbandoned: opts.MaxAbandonedRuns, TimeZone: opts.TimeZone})
	default:
		return nil, fmt.Errorf("runtime: unknown engine %q (want one of %q)", opts.Engine, Engines())
	}
	if err != nil {
		return nil, fmt.Errorf("runtime: %s engine: %w", rt.opts.Engine, err)
	}
	return rt, nil
}

// Engine reports the engine's name.
func (rt *Runtime) Engine() string { return rt.opts.Engine }

// Limits reports the default budget.
func (rt *Runtime) Limits() Limits { return rt.limits }

// Governor reports the governor the runtime's runs and environments
// reserve memory from (nil: no bound).
func (rt *Runtime) Governor() *Governor { return rt.gov }

// Close releases the engine. Runs in progress are not waited for.
func (rt *Runtime) Close() error {
	if rt.closed.Swap(true) {
		return nil
	}
	return rt.eng.Close()
}

// CallFunc performs one nested call for a program. It returns the call id it
// used, the value the binding resolves to, or an error the binding rejects
// with (classified by tools.AsError). It is called from engine goroutines,
// concurrently, and must honour ctx.
type CallFunc func(ctx context.Context, name string, args json.RawMessage) (id string, value json.RawMessage, err error)

// Request is one program run.
type Request struct {
	// Code is the program: the body of an async function, JavaScript or
	// TypeScript.
	Code string
	// Tools are the names bound on the program's global `tools` (any other
	// name can still be called and gets the registry's UNKNOWN_TOOL).
	Tools []string
	// Call performs nested calls. If nil, every call fails with UNKNOWN_TOOL.
	Call CallFunc
	// OnLog receives console output as it happens (after truncation).
	OnLog func(Log)
	// Limits overrides the runtime's budget field by field (zero fields
	// keep the runtime's).
	Limits Limits
}

// Log is one console line.
type Log struct {
	Level string `json:"level"` // log, info, warn, error, debug
	Text  string `json:"text"`
}

// Call records one nested call.
type Call struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Duration time.Duration `json:"-"`
	// Code is the error code, "" on success.
	Code errs.Code `json:"error,omitempty"`
}

// Outcome is the result of a run.
type Outcome struct {
	// Value is the JSON return value, nil when the program returned
	// undefined or failed.
	Value json.RawMessage
	Logs  []Log
	// LogsTruncated is set when output passed the log budget.
	LogsTruncated bool
	// Err is nil on success.
	Err      *errs.Error
	Calls    []Call
	Duration time.Duration
	// Globals lists the persistent environment's top-level names after the
	// run (persistent runs only).
	Globals []string
	// Reset is set when a persistent environment had to be replaced by a
	// fresh one (first use, reset requested, or the old one broke).
	Reset bool
	// ResetCause is why the owner's previous environment was discarded
	// since its last run, when it was: this run started without the
	// top-level names of earlier programs. "" on first use, when nothing
	// was discarded, and in per-call mode.
	ResetCause ResetCause
}

// effective is the budget of one request: its fields over the runtime's.
func (rt *Runtime) effective(l Limits) Limits { return l.over(rt.limits) }

func (rt *Runtime) envOptions(persistent bool, l Limits) engine.EnvOptions {
	return engine.EnvOptions{Persistent: persistent, MemoryLimit: l.MemoryBytes, MaxStackDepth: l.MaxStackDepth,
		MaxCodeBytes: l.MaxCodeBytes, MaxNestingDepth: l.MaxNestingDepth}
}

// ErrClosed is returned (as an INTERNAL error) by runs on a closed runtime.
var ErrClosed = errors.New("runtime: closed")

// Run runs one program in a fresh environment (per-call mode).
func (rt *Runtime) Run(ctx context.Context, req Request) Outcome {
	start := time.Now()
	limits := rt.effective(req.Limits)
	if rt.closed.Load() {
		return Outcome{Err: &errs.Error{Code: errs.CodeInternal, Message: ErrClosed.Error(), Err: ErrClosed}, Duration: time.Since(start)}
	}
	if err := checkSize(req.Code, limits); err != nil {
		return Outcome{Err: err, Duration: time.Since(start)}
	}
	// Admission: the run's whole memory budget, given back when the
	// engine lets go of its VM (for a run abandoned in a built-in, when
	// the built-in returns, not when Run returns).
	res, rerr := rt.gov.reserve(limits.MemoryBytes, false)
	if rerr != nil {
		return Outcome{Err: rerr, Duration: time.Since(start)}
	}
	opts := rt.envOptions(false, limits)
	opts.Released = res.close
	env, err := rt.eng.NewEnv(ctx, opts)
	if err != nil {
		res.close()
		return Outcome{Err: envError(err), Duration: time.Since(start)}
	}
	defer env.Close()
	out := rt.runIn(ctx, env, req, limits, false)
	out.Duration = time.Since(start)
	return out
}

func envError(err error) *errs.Error {
	e := errs.AsError(err)
	if e.Code == errs.CodeToolError {
		e = &errs.Error{Code: errs.CodeInternal, Message: "creating an environment: " + err.Error(), Err: err}
	}
	return e
}

// checkSize refuses a program over the code budget before anything
// parses it.
func checkSize(code string, limits Limits) *errs.Error {
	if len(code) <= limits.MaxCodeBytes {
		return nil
	}
	return &errs.Error{
		Code:    errs.CodeProgramTooLarge,
		Message: fmt.Sprintf("the program is %d bytes, over the %d-byte limit: send a shorter program (keep data in tools and fetch it from the program; in persistent mode, define helpers in one run and use them in the next)", len(code), limits.MaxCodeBytes),
		Info:    map[string]any{"bytes": len(code), "limit": limits.MaxCodeBytes},
	}
}

// runIn prepares the script and runs it in env under limits. The deadline
// starts before preparation: parsing and compiling count against it.
func (rt *Runtime) runIn(ctx context.Context, env engine.Env, req Request, limits Limits, persistent bool) Outcome {
	var out Outcome
	// The program's time is a clock an approval can hold (see deadline.go);
	// the engines see it as their context, and no fixed Job.Deadline.
	clk := newClock(ctx, limits.Timeout)
	clk.source = req.Code
	defer clk.stop() // cancels in-flight nested calls when the program ends
	deadline := clk.deadline
	ctx = clk
	ev := source.EvaluatorQuickJS // each engine's own parser decides its syntax
	if rt.opts.Engine == EngineGoja {
		ev = source.EvaluatorGoja
	}
	script, err := source.Prepare(req.Code, source.Options{Persistent: persistent, MaxNestingDepth: limits.MaxNestingDepth, Evaluator: ev})
	if err != nil {
		out.Err = errs.AsError(err)
		return out
	}
	if time.Now().After(deadline) {
		out.Err = errs.Errorf(errs.CodeTimeout, "program timed out after %s while it was being parsed", limits.Timeout)
		return out
	}

	rec := newRecorder(req, limits, deadline.Add(-limits.Timeout))
	res := env.Run(ctx, &engine.Job{
		Script:      script.JS,
		Name:        "program.js",
		LineOffset:  script.LineOffset,
		SourceLines: strings.Count(req.Code, "\n") + 1,
		EndColumn:   len(req.Code) - strings.LastIndexByte(req.Code, '\n'),
		Tools:       req.Tools,
		Call:        rec.call,
		Log:         rec.log,
		LogSpent:    rec.spent.Load,

		MaxConcurrentCalls: limits.MaxConcurrentSubcalls,
		MaxCalls:           limits.MaxSubcalls,
	})
	clk.stop()
	rec.end()
	if res.LeftRunning > 0 {
		rt.log.Warn("nested calls still running after their program ended; a tool body ignores cancellation",
			slog.Int("calls", res.LeftRunning), slog.Duration("waited", engine.Grace))
	}
	out.Logs, out.LogsTruncated, out.Calls = rec.results()
	out.Value, out.Err = res.Value, res.Err
	if script.Native && out.Err != nil && out.Err.Code == errs.CodeSyntaxError {
		c := *out.Err
		c.Message = source.NativeHint(c.Message, len(req.Code))
		out.Err = &c
	}
	if out.Err == nil && len(out.Value) > limits.MaxResultBytes {
		out.Value = nil
		out.Err = errs.Errorf(errs.CodeResultTooLarge, "the return value is %d bytes, over the %d-byte limit: return less (filter or summarise), or console.log parts of it", len(res.Value), limits.MaxResultBytes)
	}
	out.Err = rec.explain(out.Err, rt.limits, clk.final(), clk.expired.Load())
	if out.Err != nil && out.Err.Code == errs.CodeTimeout {
		if held := clk.heldFor(); held > 0 {
			c := *out.Err
			c.Message += fmt.Sprintf(" (not counting %s spent waiting for approval)", held.Round(time.Millisecond))
			out.Err = &c
		}
	}
	out.Err = boundError(out.Err)
	return out
}

// The error budget: what a failure carries back is bounded whatever the
// program threw (a 5 MB message once became a 15 MB response: the message,
// the stack and the result's metadata each carried it).
const (
	maxErrorMessage = 8 << 10 // bytes of the message
	maxErrorString  = 8 << 10 // bytes of each string in Info (the stack among them)
	maxErrorInfo    = 16      // entries of Info, lists included
)

// boundError returns e with its message, and the strings and lists of its
// Info, cut to the error budget. It copies instead of changing e, which an
// engine may share.
func boundError(e *errs.Error) *errs.Error {
	if e == nil {
		return nil
	}
	c := *e
	c.Message = human.Cut(c.Message, maxErrorMessage)
	if len(e.Info) > 0 {
		c.Info = make(map[string]any, len(e.Info))
		n := 0
		for k, v := range e.Info {
			if n == maxErrorInfo {
				break
			}
			n++
			switch v := v.(type) {
			case string:
				c.Info[k] = human.Cut(v, maxErrorString)
			case []string:
				if len(v) > maxErrorInfo {
					v = v[:maxErrorInfo]
				}
				c.Info[k] = v
			case []any:
				if len(v) > maxErrorInfo {
					v = v[:maxErrorInfo]
				}
				c.Info[k] = v
			default:
				c.Info[k] = v
			}
		}
	}
	return &c
}

// recorder enforces the nested-call count and log budgets of one run and
// records what happened. The concurrency bound and the wait for cancelled
// calls are the engine scheduler's (Job.MaxConcurrentCalls, engine.Grace).
type recorder struct {
	req    Request
	limits Limits
	start  time.Time // when the run's clock started
	count  atomic.Int64

	mu        sync.Mutex
	done      bool // the run is over: no new nested calls
	calls     []Call
	spans     []*span // every nested call made, in order
	logs      []Log
	logBytes  int
	truncated bool
	spent     atomic.Bool // truncated, read without the lock (engine.Job.LogSpent)
}

func newRecorder(req Request, limits Limits, start time.Time) *recorder {
	return &recorder{req: req, limits: limits, start: start}
}

func (r *recorder) call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	r.mu.Lock()
	done := r.done
	r.mu.Unlock()
	if done {
		return nil, errs.Errorf(errs.CodeCancelled, "the program has ended")
	}
	n := r.count.Add(1)
	if n > int64(r.limits.MaxSubcalls) {
		return nil, errs.Errorf(errs.CodeSubcallLimit, "nested call limit reached: at most %d calls per run (call %d was %s)", r.limits.MaxSubcalls, n, human.Cut(name, maxCallName))
	}
	// A name past the registry's bound never resolves; the calls list and
	// the spans keep a bounded copy so that it cannot cost the output budget.
	shown := human.Cut(name, maxCallName)
	sp := r.open(n, shown)
	defer r.close(sp)
	if r.req.Call == nil {
		return nil, errs.Errorf(errs.CodeUnknownTool, "unknown tool %q: no tools are available", name)
	}
	start := time.Now()
	id, value, err := r.req.Call(ctx, name, args)
	c := Call{ID: id, Name: shown, Duration: time.Since(start)}
	if err != nil {
		c.Code = errs.CodeOf(err)
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return value, err
}

// maxCallName bounds a tool name as the calls list records it (the
// registry refuses names over 512 bytes before resolving them).
const maxCallName = 512

const truncationMarker = "[output truncated: the log budget is exhausted]"

// logEntryCost is what a console line costs on top of its text: every
// entry travels as {"level":…,"text":…} and a line of the text content, so
// `for (;;) console.log()` spends the budget too.
const logEntryCost = 32

func (r *recorder) log(level, text string) {
	r.mu.Lock()
	if r.truncated {
		r.mu.Unlock()
		return
	}
	var l Log
	if cost := len(text) + logEntryCost; r.logBytes+cost > r.limits.MaxLogBytes {
		r.truncated = true
		r.spent.Store(true)
		l = Log{Level: "warn", Text: truncationMarker}
	} else {
		r.logBytes += cost
		l = Log{Level: level, Text: text}
	}
	r.logs = append(r.logs, l)
	r.mu.Unlock()
	if r.req.OnLog != nil {
		r.req.OnLog(l)
	}
}

// end ends the run's nested calls: a call that starts now (from a tool
// body that ignored cancellation, say) fails at once.
func (r *recorder) end() {
	r.mu.Lock()
	r.done = true
	r.mu.Unlock()
}

func (r *recorder) results() ([]Log, bool, []Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.logs, r.truncated, r.calls
}
