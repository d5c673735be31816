// Package runview is the run viewer: a bounded ring of the recent code_run
// programs, each with its code, its console output, its outcome and the
// waterfall of its nested calls, served as a JSON endpoint and one
// self-contained HTML page (docs/observability.md#the-run-viewer).
//
//	v := runview.New(runview.Options{Runs: 50, Redact: rules})
//	remove := reg.Use(v.Middleware())                 // the nested calls
//	popts.Observers = append(popts.Observers, v.Observer()) // the runs
//	mux.Handle("/runs", v.Handler())                   // and /runs/api/...
//
// What it keeps is bounded: the number of runs, and per run the code,
// the console lines, the nested calls and each argument, result and value
// (redacted with the config's rules, then cut). A run in progress is in
// the ring from its start: the page polls while it runs.
package runview

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// Options configures a Viewer. A zero field means the default in its
// comment.
type Options struct {
	// Runs is how many runs the ring keeps. If zero, 50.
	Runs int
	// MaxBytes cuts each argument, result, value, log line and error
	// message. If zero, 4 KiB.
	MaxBytes int
	// MaxCodeBytes cuts a run's code. If zero, 64 KiB.
	MaxCodeBytes int
	// MaxCalls and MaxLogs bound the nested calls and console lines kept
	// per run (the rest are counted). If zero, 500 and 500.
	MaxCalls, MaxLogs int
	// MaxRunBytes bounds what one run keeps of arguments, results and
	// console text together; past it they read "[not kept: …]". If zero,
	// 256 KiB, so the ring holds at most Runs × (MaxRunBytes +
	// MaxCodeBytes) of them.
	MaxRunBytes int
	// Redact hides secrets in arguments, results and values. If nil,
	// redact.Default().
	Redact *redact.Rules
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Runs, 50)
	def(&o.MaxBytes, 4<<10)
	def(&o.MaxCodeBytes, 64<<10)
	def(&o.MaxCalls, 500)
	def(&o.MaxLogs, 500)
	def(&o.MaxRunBytes, 256<<10)
	if o.Redact == nil {
		o.Redact = redact.Default()
	}
	return o
}

// Viewer records runs. It is safe for concurrent use.
type Viewer struct {
	opts Options

	mu      sync.Mutex
	ring    []*run // oldest first, at most opts.Runs
	seq     int64
	running map[tools.Token]*run // by the code_run call's token, until it ends
}

// New returns an empty viewer.
func New(opts Options) *Viewer {
	return &Viewer{opts: opts.withDefaults(), running: map[tools.Token]*run{}}
}

// Run is one program as the JSON endpoint shows it. In the list
// (/runs/api/runs) Code, Logs, Value and Calls are left out.
type Run struct {
	ID     string    `json:"id"`
	CallID string    `json:"callId"`
	Agent  string    `json:"agent,omitempty"`
	Engine string    `json:"engine"`
	Mode   string    `json:"mode"`
	Start  time.Time `json:"start"`
	// Ms is the run's duration, or how long it has been running.
	Ms float64 `json:"ms"`
	// Status is "running", "ok" or "error".
	Status string `json:"status"`
	// Title is the program's first non-blank line, cut.
	Title string    `json:"title"`
	Error *RunError `json:"error,omitempty"`
	// Fresh reports a fresh environment (always in per-call mode); set
	// when the run ended.
	Fresh     bool   `json:"fresh"`
	CallCount int    `json:"callCount"`
	Code      string `json:"code,omitempty"`
	CodeCut   bool   `json:"codeCut,omitempty"`
	Logs      []Log  `json:"logs,omitempty"`
	// LogsDropped counts console lines past MaxLogs.
	LogsDropped int `json:"logsDropped,omitempty"`
	// Value is the return value's JSON, redacted and cut.
	Value string `json:"value,omitempty"`
	Calls []Call `json:"calls,omitempty"`
	// CallsDropped counts nested calls past MaxCalls.
	CallsDropped int `json:"callsDropped,omitempty"`
}

// RunError is a failed run's error; Line and Column (from 1) name the
// failing place in the program, when the engine said.
type RunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// Log is one console line; Ms is its offset from the run's start.
type Log struct {
	Level string  `json:"level"`
	Text  string  `json:"text"`
	Ms    float64 `json:"ms"`
}

// Call is one nested call of a run: its offset from the run's start and
// duration, outcome ("running", "ok" or the error code), and its
// arguments and result, redacted and cut.
type Call struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	StartMs   float64 `json:"startMs"`
	Ms        float64 `json:"ms"`
	Status    string  `json:"status"`
	Arguments string  `json:"arguments,omitempty"`
	Result    string  `json:"result,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// run is a Run being recorded; its fields are guarded by Viewer.mu.
type run struct {
	Run
	started time.Time
	done    bool
	bytes   int // of arguments, results and console text kept
}

// notKept replaces what a run's byte budget has no room for.
const notKept = "[not kept: this run's viewer budget is spent]"

// keep charges s to r's budget and returns it, or notKept when it does not
// fit; Viewer.mu is held.
func (v *Viewer) keep(r *run, s string) string {
	if r.bytes+len(s) > v.opts.MaxRunBytes {
		return notKept
	}
	r.bytes += len(s)
	return s
}

// Observer returns the codemode.RunObserver that records runs.
func (v *Viewer) Observer() codemode.RunObserver {
	return func(_ context.Context, start codemode.RunStart) *codemode.RunWatch {
		now := time.Now()
		r := &run{started: now, Run: Run{
			CallID: start.Call.CallID(), Engine: start.Engine, Mode: string(start.Mode),
			Start: now, Status: "running", Title: title(start.Code),
		}}
		if a := start.Call.Agent(); a != nil {
			r.Agent = a.ID()
		}
		r.Code = start.Code
		if len(r.Code) > v.opts.MaxCodeBytes {
			r.Code, r.CodeCut = human.Cut(r.Code, v.opts.MaxCodeBytes), true
		}
		tok := start.Call.Token()
		v.mu.Lock()
		v.seq++
		r.ID = strconv.FormatInt(v.seq, 10)
		v.running[tok] = r
		v.ring = append(v.ring, r)
		if len(v.ring) > v.opts.Runs {
			v.ring[0] = nil
			v.ring = v.ring[1:]
		}
		v.mu.Unlock()
		return &codemode.RunWatch{
			Log: func(l runtime.Log) {
				ms := msSince(r.started)
				v.mu.Lock()
				defer v.mu.Unlock()
				if len(r.Logs) >= v.opts.MaxLogs {
					r.LogsDropped++
					return
				}
				r.Logs = append(r.Logs, Log{Level: l.Level, Text: v.keep(r, human.Cut(l.Text, v.opts.MaxBytes)), Ms: ms})
			},
			Done: func(end codemode.RunEnd) {
				out := end.Outcome
				var value string
				if out.Value != nil {
					value = human.Cut(string(v.opts.Redact.Apply(out.Value)), v.opts.MaxBytes)
				}
				v.mu.Lock()
				defer v.mu.Unlock()
				delete(v.running, tok)
				r.done = true
				r.Ms = msSince(r.started)
				r.Fresh = end.Fresh
				r.Value = value
				r.Status = "ok"
				if out.Err != nil {
					r.Status = "error"
					r.Error = runError(out.Err, v.opts.MaxBytes)
				}
			},
		}
	}
}

// Middleware returns the tools.Middleware that records the nested calls of
// the runs being recorded. Other calls pass through after one map look-up.
func (v *Viewer) Middleware() tools.Middleware {
	return func(next tools.Executor) tools.Executor {
		return func(ctx context.Context, e *tools.Execution) *tools.Result {
			parent := e.Parent()
			if parent.IsZero() {
				return next(ctx, e)
			}
			v.mu.Lock()
			r := v.running[parent]
			var c *Call
			if r != nil {
				r.CallCount++
				if len(r.Calls) < v.opts.MaxCalls {
					r.Calls = append(r.Calls, Call{ID: e.CallID(), Name: human.Cut(e.Name(), 256), StartMs: msSince(r.started), Status: "running"})
					c = &r.Calls[len(r.Calls)-1]
				} else {
					r.CallsDropped++
				}
			}
			v.mu.Unlock()
			if c == nil {
				return next(ctx, e)
			}
			id := e.CallID()
			res := next(ctx, e)
			// Redact and cut outside the lock.
			args := v.payload(e.Arguments())
			var result, errText string
			status := "ok"
			if res.IsError && res.Err != nil {
				status = string(res.Err.Code)
				errText = human.Cut(res.Err.Message, v.opts.MaxBytes)
			} else if len(res.Value) > 0 {
				result = v.payload(res.Value)
			} else {
				result = human.Cut(res.TextOf(), v.opts.MaxBytes)
			}
			ms := msSince(e.Start())
			v.mu.Lock()
			// r.Calls may have grown (and moved) since: find the call again.
			for i := len(r.Calls) - 1; i >= 0; i-- {
				if c := &r.Calls[i]; c.ID == id && c.Status == "running" {
					c.Ms, c.Status, c.Arguments, c.Result, c.Error = ms, status, v.keep(r, args), v.keep(r, result), v.keep(r, errText)
					break
				}
			}
			v.mu.Unlock()
			return res
		}
	}
}

// payload is a JSON document as the viewer shows it: redacted, then cut.
func (v *Viewer) payload(doc json.RawMessage) string {
	if len(doc) == 0 {
		return ""
	}
	return human.Cut(string(v.opts.Redact.Apply(doc)), v.opts.MaxBytes)
}

// List returns the runs, newest first, without their code, logs, value
// and calls.
func (v *Viewer) List() []Run {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]Run, 0, len(v.ring))
	for i := len(v.ring) - 1; i >= 0; i-- {
		r := v.ring[i].snapshot()
		r.Code, r.Logs, r.Value, r.Calls = "", nil, "", nil
		out = append(out, r)
	}
	return out
}

// Get returns the run with id, whole.
func (v *Viewer) Get(id string) (Run, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, r := range v.ring {
		if r.ID == id {
			return r.snapshot(), true
		}
	}
	return Run{}, false
}

// snapshot copies r; Viewer.mu is held.
func (r *run) snapshot() Run {
	s := r.Run
	if !r.done {
		s.Ms = msSince(r.started)
	}
	s.Logs = append([]Log(nil), r.Logs...)
	s.Calls = append([]Call(nil), r.Calls...)
	for i := range s.Calls {
		if s.Calls[i].Status == "running" {
			s.Calls[i].Ms = s.Ms - s.Calls[i].StartMs
		}
	}
	return s
}

func runError(err *errs.Error, max int) *RunError {
	re := &RunError{Code: string(err.Code), Message: human.Cut(err.Message, max)}
	re.Line, _ = err.InfoInt("line")
	re.Column, _ = err.InfoInt("column")
	return re
}

// title is the first non-blank line of code, cut to 120 bytes.
func title(code string) string {
	for line := range strings.SplitSeq(code, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return human.Cut(line, 120)
		}
	}
	return ""
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }
