package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	bare "github.com/dop251/goja"

	"github.com/codemode/codemode/runtime"
)

// Builtin is one case of the built-ins micro-suite (`codemode bench
// --suite builtins`): one operation, timed per call inside a program's
// loop, in the sandbox (the whole code_run runtime, per-call
// environment) and in the bare engine beside it.
type Builtin struct {
	Name string
	// Setup runs before the loop (untimed: see measure); Op is the loop's
	// body, which may use i and the setup's bindings; Tail runs after the
	// loop (timed).
	Setup, Op, Tail string
	// Refused runs the case with a nested-call limit of 1 and a tool
	// "echo" (the sandbox only): its calls past the first are refused
	// with SUBCALL_LIMIT.
	Refused bool
	// N is the loop's iterations in one timed program.
	N int
	// MaxLogBytes, if set, is the sandbox's log budget for the case (a
	// small one lets a case spend it without a megabyte of setup, whose
	// cost varies by more than the loop's).
	MaxLogBytes int
	// Reps, if more than 1, is how many times each timed program runs
	// in one round: for a case whose N is bounded (a refused call: the
	// run is stopped after 1,000 refusals), more operations per figure.
	Reps int
}

// Builtins is the micro-suite, in table order.
func Builtins() []Builtin {
	return []Builtin{
		{Name: "empty-loop", Op: ``, N: 50000},
		{Name: "call-empty", Setup: `const f = function () {};`, Op: `f("x");`, N: 50000},
		{Name: "repeat", Op: `s = "y".repeat(200);`, N: 20000},
		{Name: "padStart", Op: `s = "x".padStart(100, "ab");`, N: 20000},
		{Name: "join", Setup: `const a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];`, Op: `s = a.join(",");`, N: 20000},
		{Name: "concat", Op: `s = "a".concat("b", i);`, N: 20000},
		{Name: "console.log", Op: `console.log("x");`, N: 20000},
		{Name: "console.log-spent", MaxLogBytes: 64, Setup: `console.log("x".repeat(100));`, Op: `console.log("x");`, N: 50000},
		// The floor of a dropped line: the same lookups and call, of a native
		// function that does nothing (Function.prototype).
		{Name: "noop-method", Setup: `globalThis.noop = {log: Function.prototype};`, Op: `noop.log("x");`, N: 50000},
		{Name: "new-Uint8Array", Op: `s = new Uint8Array(64);`, N: 20000},
		{Name: "Array.from-100", Op: `s = Array.from({length: 100}, (_, k) => k);`, N: 2000},
		{Name: "Array.from-array", Setup: `const a = Array.from({length: 100}, (_, k) => k);`, Op: `s = Array.from(a);`, N: 5000},
		{Name: "Map", Setup: `const m = new Map();`, Op: `m.set(i & 1023, i); s = m.get(i & 511);`, N: 50000},
		{Name: "regex-replace", Op: `s = "hello world, foo bar baz".replace(/o/g, "0");`, N: 20000},
		{Name: "sort-comparator", Setup: `const a = Array.from({length: 100}, (_, k) => (k * 7919) % 100);`, Op: `s = a.slice().sort((x, y) => x - y);`, N: 1000},
		{Name: "Promise.reject", Setup: `const e0 = new Error("x"), ps = [];`, Op: `ps.push(Promise.reject(e0));`, N: 900, Reps: 10},
		{Name: "subcall-refused", Refused: true, Setup: `try { await tools.echo({}) } catch (e) {} const ps = [];`, Op: `ps.push(tools.echo({}));`, N: 900, Reps: 10},
		{Name: "JSON.parse-100KB", Setup: `const t = JSON.stringify(Array.from({length: 1000}, (_, k) => ({id: k, name: "item " + k, tags: ["a", "b"], price: k * 1.5, ok: k % 2 === 0})));`, Op: `s = JSON.parse(t);`, N: 40},
	}
}

// program is the case's program with n iterations; it returns n.
func (c Builtin) program(n int) string {
	return fmt.Sprintf("%s\nlet s;\nfor (let i = 0; i < %d; i++) { %s }\n%s\nreturn %d;", c.Setup, n, c.Op, c.Tail, n)
}

// BuiltinRow is one case on one engine: nanoseconds per operation in
// the sandbox and in the bare engine (0 when not measured), and their
// ratio.
type BuiltinRow struct {
	Case    string  `json:"case"`
	Engine  string  `json:"engine"`
	N       int     `json:"n"`
	Sandbox float64 `json:"sandbox_ns"`
	Bare    float64 `json:"bare_ns,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"`
	BareOf  string  `json:"bare,omitempty"` // what "bare" was
	Error   string  `json:"error,omitempty"`
}

// BuiltinsReport is the suite's result.
type BuiltinsReport struct {
	Schema  string        `json:"schema"`
	Rounds  int           `json:"rounds"`
	Started time.Time     `json:"started"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Rows    []BuiltinRow  `json:"rows"`
	Notes   []string      `json:"notes,omitempty"`
}

// BuiltinsOptions configures RunBuiltins.
type BuiltinsOptions struct {
	Engines []string // default: every engine
	Cases   []string // default: every case
	Rounds  int      // rounds per figure, the fastest kept; default 5
}

// RunBuiltins runs the micro-suite. Each figure is the fastest of Rounds
// rounds of (time of the program with N iterations − time with 0) / N,
// in process CPU time (wall time where it cannot be read): the
// subtraction removes the run's fixed cost (environment, setup,
// compilation), the minimum most of a loaded machine's noise. The loop's
// own cost (an empty iteration) is included, on both sides.
func RunBuiltins(ctx context.Context, opts BuiltinsOptions) (*BuiltinsReport, error) {
	if opts.Rounds <= 0 {
		opts.Rounds = 5
	}
	engines := opts.Engines
	if len(engines) == 0 {
		engines = runtime.Engines()
	}
	rep := &BuiltinsReport{Schema: "codemode.bench.builtins/v1", Rounds: opts.Rounds, Started: time.Now()}
	rep.Notes = append(rep.Notes, "bare goja is upstream github.com/dop251/goja with console.log a Go function that keeps the line; bare QuickJS (the wasm without the prelude) is not measured: the runtime has no entry point to a realm without its prelude")
	for _, eng := range engines {
		rt, err := runtime.New(runtime.Options{Engine: eng, PoolSize: 2})
		if err != nil {
			rep.Rows = append(rep.Rows, BuiltinRow{Engine: eng, Error: err.Error()})
			continue
		}
		for _, c := range Builtins() {
			if len(opts.Cases) > 0 && !slices.Contains(opts.Cases, c.Name) {
				continue
			}
			row := BuiltinRow{Case: c.Name, Engine: eng, N: c.N * max(c.Reps, 1)}
			row.Sandbox, err = measure(opts.Rounds, c, func(code string) error { return sandboxRun(ctx, rt, code, c) })
			if err != nil {
				row.Error = err.Error()
			} else if eng == runtime.EngineGoja && !c.Refused {
				row.BareOf = "dop251/goja"
				row.Bare, err = measure(opts.Rounds, c, bareRun)
				if err != nil {
					row.Error = "bare: " + err.Error()
				} else if row.Bare > 0 {
					row.Ratio = row.Sandbox / row.Bare
				}
			}
			rep.Rows = append(rep.Rows, row)
		}
		rt.Close()
	}
	rep.Elapsed = time.Since(rep.Started)
	return rep, nil
}

func measure(rounds int, c Builtin, run func(code string) error) (float64, error) {
	empty, full := c.program(0), c.program(c.N)
	// One untimed round of each: compilation caches, lazily built
	// built-ins, the pool.
	if err := run(empty); err != nil {
		return 0, err
	}
	if err := run(full); err != nil {
		return 0, err
	}
	// The process's CPU time where it can be read (on a loaded machine
	// wall time mostly measures the wait for a core), else wall time.
	clock := func() time.Duration {
		if t, ok := cpuTime(); ok {
			return t
		}
		return time.Duration(time.Now().UnixNano())
	}
	reps := max(c.Reps, 1)
	best := -1.0
	for range rounds {
		t0 := clock()
		for range reps {
			if err := run(empty); err != nil {
				return 0, err
			}
		}
		t1 := clock()
		for range reps {
			if err := run(full); err != nil {
				return 0, err
			}
		}
		t2 := clock()
		per := float64((t2-t1)-(t1-t0)) / float64(c.N*reps)
		if best < 0 || per < best {
			best = per
		}
	}
	return max(best, 0), nil
}

func sandboxRun(ctx context.Context, rt *runtime.Runtime, code string, c Builtin) error {
	req := runtime.Request{Code: code}
	req.Limits.MaxLogBytes = c.MaxLogBytes
	if c.Refused {
		req.Tools = []string{"echo"}
		req.Call = func(context.Context, string, json.RawMessage) (string, json.RawMessage, error) {
			return "", json.RawMessage("{}"), nil
		}
		req.Limits.MaxSubcalls = 1
	}
	out := rt.Run(ctx, req)
	if out.Err != nil {
		return out.Err
	}
	return nil
}

// bareRun runs code, an async function's body, in a fresh upstream goja
// runtime (whose promise jobs run before RunString returns).
func bareRun(code string) error {
	vm := bare.New()
	var lines []string
	con := vm.NewObject()
	if err := con.Set("log", func(c bare.FunctionCall) bare.Value {
		if len(c.Arguments) > 0 {
			lines = append(lines, c.Arguments[0].String())
		}
		return bare.Undefined()
	}); err != nil {
		return err
	}
	if err := vm.Set("console", con); err != nil {
		return err
	}
	v, err := vm.RunString("(async function () {\n" + code + "\n})()")
	if err != nil {
		return err
	}
	if p, ok := v.Export().(*bare.Promise); ok && p.State() != bare.PromiseStateFulfilled {
		return fmt.Errorf("the program did not complete: %v", p.Result())
	}
	return nil
}

// WriteTable prints the suite as a table.
func (r *BuiltinsReport) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tengine\tn\tsandbox µs/op\tbare µs/op\tsandbox/bare\t")
	for _, row := range r.Rows {
		if row.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t%d\tERROR: %s\t\t\t\n", row.Case, row.Engine, row.N, row.Error)
			continue
		}
		bareS, ratio := "-", "-"
		if row.Bare > 0 {
			bareS, ratio = us(row.Bare), strconv.FormatFloat(row.Ratio, 'f', 2, 64)+"×"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t\n", row.Case, row.Engine, row.N, us(row.Sandbox), bareS, ratio)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

func us(ns float64) string { return strconv.FormatFloat(ns/1000, 'f', 3, 64) }

// WriteJSON prints the suite as one JSON document.
func (r *BuiltinsReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Failed reports whether a row failed.
func (r *BuiltinsReport) Failed() bool {
	for _, row := range r.Rows {
		if row.Error != "" {
			return true
		}
	}
	return false
}
