package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/runtime"
)

// CanaryProgram is what the canary session runs every 100 ms: a nested
// call to the shared upstream and a little allocation.
const CanaryProgram = `const r = await tools.mcp__fake__ticker({ symbol: 'CANARY' }); const a = new Array(1000).fill(r.price); return a.length`

// Options configure [Run].
type Options struct {
	Exe         string        // the codemode binary (see Build)
	Dir         string        // scratch directory for configs and programs
	Engines     []string      // default goja, wazero
	Transports  []string      // default stdio, http, run
	Memory      int64         // the per-run memory budget (codemode.memory); default 64 MiB
	Timeout     time.Duration // codemode.timeout unless a case sets one; default 2s
	ResultBytes int64         // maxResultBytes and maxLogBytes each; default 512 KiB
	After       time.Duration // how long CPU is watched after the answer; default 2s
	Warm        time.Duration // canary warm-up before the case; default 1s
	Cases       []Case        // default the embedded suite
	Log         io.Writer     // a line per result as they come; may be nil
}

func (o *Options) defaults() error {
	if o.Exe == "" {
		return fmt.Errorf("hostile: no codemode binary")
	}
	if len(o.Engines) == 0 {
		o.Engines = runtime.Engines()
	}
	if len(o.Transports) == 0 {
		o.Transports = []string{Stdio, HTTP, RunJSON}
	}
	if o.Memory == 0 {
		o.Memory = 64 << 20
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	if o.ResultBytes == 0 {
		o.ResultBytes = 512 << 10
	}
	if o.After == 0 {
		o.After = 2 * time.Second
	}
	if o.Warm == 0 {
		o.Warm = time.Second
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "codemode-hostile-")
		if err != nil {
			return err
		}
		o.Dir = d
	}
	if o.Cases == nil {
		cs, err := Cases()
		if err != nil {
			return err
		}
		o.Cases = cs
	}
	return nil
}

// Targets of issue 18, per hostile case.
const (
	RSSFactorGoja     = 2.0
	RSSFactorWazero   = 1.25
	MaxCPUAfter       = time.Second
	ResponseSlack     = 4 << 10
	MaxCanaryStep     = 100 * time.Millisecond
	canaryEvery       = 100 * time.Millisecond
	canaryAnswerLimit = 20 * time.Second
)

// Result is one case on one engine and transport.
type Result struct {
	Case      string `json:"case"`
	Class     int    `json:"class"`
	Engine    string `json:"engine"`
	Transport string `json:"transport"`

	Code    string   `json:"code"`  // the last run's code
	Codes   []string `json:"codes"` // every run's, when more than one
	Message string   `json:"message,omitempty"`
	Elapsed float64  `json:"elapsedSeconds"` // hostile program: send to last answer

	Budget      int64   `json:"memoryBudget"`
	BaselineRSS int64   `json:"baselineRSS"` // idle server (or trivial run) RSS, subtracted
	PeakRSS     int64   `json:"peakRSS"`
	RSSRatio    float64 `json:"rssOverBudget"` // (peak − baseline) / budget
	RSSLimit    float64 `json:"rssLimit"`
	PeakReset   bool    `json:"peakReset"` // clear_refs worked (else sampled every 10 ms)

	CPUAfter   float64 `json:"cpuAfterSeconds"` // minus the canary's normal cost
	CanaryRate float64 `json:"canaryCPUPerSecond"`
	Lingered   bool    `json:"lingered,omitempty"` // run: still running After past the answer

	Bytes          int   `json:"responseBytes"` // largest answer incl. progress notifications
	Progress       int   `json:"progressNotifications"`
	ResponseBudget int64 `json:"responseBudget"`

	Canary *CanaryStats `json:"canary,omitempty"` // nil for run --json
	Then   string       `json:"then,omitempty"`   // the innocent program's code

	Survived bool   `json:"survived"`
	Crash    string `json:"crash,omitempty"`

	Fail []string `json:"fail"` // targets missed: survive, rss, cpu, response, canary, code
}

// Pass reports whether every target held.
func (r *Result) Pass() bool { return len(r.Fail) == 0 }

// CanaryStats is what the canary saw during the case.
type CanaryStats struct {
	Runs       int     `json:"runs"`
	Errors     int     `json:"errors"`
	FirstError string  `json:"firstError,omitempty"`
	BaseMs     float64 `json:"baselineMedianMs"`
	NoiseMs    float64 `json:"warmupStepMs"` // the largest step before the case: the machine's noise
	MaxMs      float64 `json:"maxMs"`
	StepMs     float64 `json:"stepMs"` // max − baseline median
}

// Run runs every case on every engine and transport, one at a time, and
// returns the results in that order.
func Run(ctx context.Context, o Options) ([]Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	st := &settings{exe: o.Exe, dir: o.Dir, memory: o.Memory, timeout: o.Timeout, resultBytes: o.ResultBytes}
	var out []Result
	runBase := map[string]int64{}
	for _, c := range o.Cases {
		for _, engine := range o.Engines {
			for _, tr := range o.Transports {
				if ctx.Err() != nil {
					return out, ctx.Err()
				}
				var r Result
				var err error
				if tr == RunJSON && c.Mode != "" && c.Mode != "per-call" {
					continue // nothing persists across processes
				}
				if tr == RunJSON {
					if _, ok := runBase[engine]; !ok {
						runBase[engine], err = trivialRunRSS(ctx, st, engine)
						if err != nil {
							return out, err
						}
					}
					r, err = runCaseRun(ctx, st, &o, c, engine, runBase[engine])
				} else {
					r, err = runCaseServe(ctx, st, &o, c, engine, tr)
				}
				if err != nil {
					return out, fmt.Errorf("%s on %s over %s: %w", c.Name, engine, tr, err)
				}
				judge(&r, &c, &o)
				fmt.Fprintln(o.Log, r.line())
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func (r *Result) line() string {
	pass := "pass"
	if !r.Pass() {
		pass = "FAIL " + strings.Join(r.Fail, ",")
	}
	can := "n/a"
	if r.Canary != nil {
		can = fmt.Sprintf("%d err, max %.0f ms (+%.0f)", r.Canary.Errors, r.Canary.MaxMs, r.Canary.StepMs)
	}
	return fmt.Sprintf("%-45s %-6s %-5s %-20s rss %.2fx cpu %.2fs resp %s canary %s: %s",
		r.Case, r.Engine, r.Transport, r.Code, r.RSSRatio, r.CPUAfter, sizeStr(int64(r.Bytes)), can, pass)
}

// judge fills r.Fail from the targets.
func judge(r *Result, c *Case, _ *Options) {
	r.Fail = []string{}
	if !r.Survived {
		r.Fail = append(r.Fail, "survive")
	}
	r.RSSLimit = RSSFactorWazero
	if r.Engine == runtime.EngineGoja {
		r.RSSLimit = RSSFactorGoja
	}
	if r.RSSRatio > r.RSSLimit {
		r.Fail = append(r.Fail, "rss")
	}
	if r.CPUAfter > MaxCPUAfter.Seconds() {
		r.Fail = append(r.Fail, "cpu")
	}
	if int64(r.Bytes) > r.ResponseBudget+ResponseSlack {
		r.Fail = append(r.Fail, "response")
	}
	if cs := r.Canary; cs != nil && (cs.Errors > 0 || cs.StepMs > float64(MaxCanaryStep.Milliseconds())) {
		r.Fail = append(r.Fail, "canary")
	} else if r.Then != "" && r.Then != "OK" {
		r.Fail = append(r.Fail, "canary")
	}
	if !r.codeOK(c) {
		r.Fail = append(r.Fail, "code")
	}
}

// codeOK checks the answer's code against the case (the value and forbid
// checks were folded into Code when the answer came).
func (r *Result) codeOK(c *Case) bool {
	if strings.HasPrefix(r.Code, "value ") || strings.HasPrefix(r.Code, "forbidden ") {
		return false
	}
	if len(c.Codes) == 0 {
		return true
	}
	for _, want := range c.Codes {
		if want == r.Code {
			return true
		}
	}
	return false
}

// checkAnswer folds the case's value and forbid checks into the code: a
// wrong value is "value <got>", forbidden text "forbidden <text>".
func checkAnswer(c *Case, code string, value json.RawMessage, text string) string {
	for _, f := range c.Forbid {
		if strings.Contains(text, f) {
			return "forbidden " + f
		}
	}
	if c.Value != nil && code == "OK" && !jsonEqual(c.Value, value) {
		return "value " + cut(string(value), 60)
	}
	return code
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// canary runs CanaryProgram every 100 ms in its own session and records
// each run.
type canary struct {
	mu      sync.Mutex
	samples []canarySample
	stop    chan struct{}
	done    chan struct{}
}

type canarySample struct {
	start, end time.Time
	code, err  string
}

func startCanary(ctx context.Context, s *mcp.ClientSession, sink *progressSink) *canary {
	c := &canary{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		t := time.NewTicker(canaryEvery)
		defer t.Stop()
		for {
			start := time.Now()
			a := codeRun(ctx, s, sink, CanaryProgram, canaryAnswerLimit)
			c.mu.Lock()
			c.samples = append(c.samples, canarySample{start: start, end: time.Now(), code: a.Code, err: a.Err})
			c.mu.Unlock()
			select {
			case <-c.stop:
				return
			case <-t.C:
			}
		}
	}()
	return c
}

func (c *canary) end() []canarySample {
	close(c.stop)
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	// HOSTILE_CANARY_TRACE=file appends every canary run (start, end, unix
	// seconds; milliseconds; code): lined up with a runtime/trace or a
	// gctrace of serve, it says what a step coincided with.
	if f := os.Getenv("HOSTILE_CANARY_TRACE"); f != "" {
		if w, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err == nil {
			for _, x := range c.samples {
				fmt.Fprintf(w, "%.6f %.6f %.1f %s\n", float64(x.start.UnixNano())/1e9, float64(x.end.UnixNano())/1e9, float64(x.end.Sub(x.start).Microseconds())/1000, x.code)
			}
			w.Close()
		}
	}
	return c.samples
}

// canaryStats summarises the samples that ended after from, against the
// median of those that ended before.
func canaryStats(samples []canarySample, from time.Time) *CanaryStats {
	var base []float64
	cs := &CanaryStats{}
	for _, s := range samples {
		ms := float64(s.end.Sub(s.start).Microseconds()) / 1000
		if s.end.Before(from) {
			base = append(base, ms)
			continue
		}
		cs.Runs++
		cs.MaxMs = max(cs.MaxMs, ms)
		if s.code != "OK" {
			cs.Errors++
			if cs.FirstError == "" {
				cs.FirstError = s.code + ": " + cut(s.err, 120)
			}
		}
	}
	cs.BaseMs = percentile(base, 50)
	cs.StepMs = max(0, cs.MaxMs-cs.BaseMs)
	cs.NoiseMs = max(0, percentile(base, 100)-cs.BaseMs)
	return cs
}

func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

// runCaseServe runs c against a fresh `codemode serve` over tr.
func runCaseServe(ctx context.Context, st *settings, o *Options, c Case, engine, tr string) (Result, error) {
	r := Result{Case: c.Name, Class: c.Class, Engine: engine, Transport: tr, Budget: st.memory, ResponseBudget: 2 * st.resultBytes}
	cfg, err := st.writeConfig("serve", engine, &c)
	if err != nil {
		return r, err
	}
	srv, err := startServer(ctx, st.exe, cfg, tr)
	if err != nil {
		return r, err
	}
	defer srv.close()
	hs, err := srv.session(ctx)
	if err != nil {
		return r, fmt.Errorf("hostile session: %w", err)
	}
	cs, err := srv.session(ctx)
	if err != nil {
		return r, fmt.Errorf("canary session: %w", err)
	}
	// Warm both sessions' first runs (pools, compilation caches).
	for _, s := range []*mcp.ClientSession{hs, cs} {
		if a := codeRun(ctx, s, srv.sink, `return 1`, 30*time.Second); a.Code != "OK" {
			return r, fmt.Errorf("warm-up run: %s %s%s", a.Code, a.Err, srv.stderr.suffix())
		}
	}
	// Over stdio the canary shares the one session, and so the agent: in
	// persistent mode it would run in the hostile program's environment.
	oneAgent := tr == Stdio && c.Mode != "" && c.Mode != "per-call"
	var can *canary
	if !oneAgent {
		can = startCanary(ctx, cs, srv.sink)
	}
	time.Sleep(o.Warm / 4)
	cpu0, _ := cpuTime(srv.pid)
	t0 := time.Now()
	time.Sleep(o.Warm)
	cpu1, _ := cpuTime(srv.pid)
	rate := (cpu1 - cpu0).Seconds() / time.Since(t0).Seconds()
	r.CanaryRate = rate
	r.BaselineRSS, _, _ = status(srv.pid)
	r.PeakReset = resetPeak(srv.pid)
	smp := startSampler(srv.pid, 10*time.Millisecond, false, r.PeakReset)

	from := time.Now()
	wait := st.timeout + 60*time.Second
	if c.Timeout > 0 {
		wait = c.Timeout + 60*time.Second
	}
	var last answer
	for range c.Runs {
		a := codeRun(ctx, hs, srv.sink, c.Program, wait)
		r.Codes = append(r.Codes, checkAnswer(&c, a.Code, a.Value, a.Text))
		r.Bytes = max(r.Bytes, a.Bytes)
		r.Progress += a.Progress
		last = a
		if a.Code == "TRANSPORT" {
			break
		}
	}
	answered := time.Now()
	r.Elapsed = answered.Sub(from).Seconds()
	cpuA, errA := cpuTime(srv.pid)
	r.Code, r.Message = r.Codes[len(r.Codes)-1], last.Err
	if len(r.Codes) == 1 {
		r.Codes = nil
	}
	if c.Then != "" && !oneAgent {
		a := codeRun(ctx, cs, srv.sink, c.Then, 30*time.Second)
		r.Then = a.Code
	}
	time.Sleep(time.Until(answered.Add(o.After)))
	cpuB, errB := cpuTime(srv.pid)
	if errA == nil && errB == nil {
		r.CPUAfter = max(0, (cpuB-cpuA).Seconds()-rate*time.Since(answered).Seconds())
	}
	sampled, _ := smp.end()
	_, hwm, _ := status(srv.pid)
	if !r.PeakReset {
		hwm = 0
	}
	r.PeakRSS = max(sampled, hwm)
	r.RSSRatio = float64(max(0, r.PeakRSS-r.BaselineRSS)) / float64(st.memory)
	if can != nil {
		r.Canary = canaryStats(can.end(), from)
	}

	// Survival: the process is there and answers a new program.
	gone := !srv.alive()
	r.Survived = !gone
	if r.Survived {
		ps, err := srv.session(ctx)
		if err == nil {
			a := codeRun(ctx, ps, srv.sink, `return 2`, 30*time.Second)
			r.Survived = a.Code == "OK"
		} else {
			r.Survived = false
		}
	}
	if !r.Survived {
		r.Crash = srv.crashed()
		switch {
		case r.Crash == "" && gone:
			r.Crash = "the process is gone"
		case r.Crash == "":
			r.Crash = "alive, but no answer to a new program"
		}
	}
	return r, nil
}

// trivialRunRSS is the peak RSS of `codemode run` of a trivial program:
// the baseline subtracted from a run's peak.
func trivialRunRSS(ctx context.Context, st *settings, engine string) (int64, error) {
	o := &Options{After: 2 * time.Second}
	r, err := runCaseRun(ctx, st, o, Case{Name: "trivial", Program: "return 1", Runs: 1}, engine, 0)
	if err != nil {
		return 0, err
	}
	if r.Code != "OK" {
		return 0, fmt.Errorf("codemode run of a trivial program on %s: %s %s", engine, r.Code, r.Message)
	}
	return r.PeakRSS, nil
}

// runCaseRun runs c with `codemode run --json`, a process of its own.
func runCaseRun(ctx context.Context, st *settings, o *Options, c Case, engine string, base int64) (Result, error) {
	r := Result{Case: c.Name, Class: c.Class, Engine: engine, Transport: RunJSON, Budget: st.memory, ResponseBudget: 2 * st.resultBytes, BaselineRSS: base}
	cfg, err := st.writeConfig("run", engine, &c)
	if err != nil {
		return r, err
	}
	prog := filepath.Join(st.dir, "program.js")
	if err := os.WriteFile(prog, []byte(c.Program), 0o644); err != nil {
		return r, err
	}
	cmd := exec.CommandContext(ctx, st.exe, "run", "--json", "--config", cfg, prog)
	stderr := &tail{max: 8192}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return r, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	pid := cmd.Process.Pid
	// VmHWM of a fresh process is its own peak since exec; rusage's
	// Maxrss is not (Linux keeps the forking harness's peak in it).
	smp := startSampler(pid, 10*time.Millisecond, false, true)
	answeredc := make(chan time.Duration, 1) // CPU at the answer
	var out bytes.Buffer
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		buf := make([]byte, 64<<10)
		sent := false
		for {
			n, err := stdout.Read(buf)
			out.Write(buf[:n])
			if !sent && n > 0 && buf[n-1] == '\n' && json.Valid(bytes.TrimSpace(out.Bytes())) {
				cpu, _ := cpuTime(pid)
				answeredc <- cpu
				sent = true
			}
			if err != nil {
				if !sent {
					answeredc <- -1
				}
				return
			}
		}
	}()
	exited := make(chan error, 1)
	var cpuA time.Duration
	var answered time.Time
	wait := st.timeout + 60*time.Second
	select {
	case cpuA = <-answeredc:
		answered = time.Now()
	case <-time.After(wait):
		answered = time.Now()
		cpuA = -1
	}
	r.Elapsed = answered.Sub(start).Seconds()
	go func() { <-readDone; exited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-time.After(time.Until(answered.Add(o.After))):
		r.Lingered = true
		cpuB, _ := cpuTime(pid)
		if cpuA >= 0 {
			r.CPUAfter = (cpuB - cpuA).Seconds()
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		werr = <-exited
	}
	sampled, _ := smp.end()
	r.PeakRSS = sampled
	if ps := cmd.ProcessState; ps != nil {
		if !r.Lingered && cpuA >= 0 {
			r.CPUAfter = max(0, (ps.UserTime() + ps.SystemTime() - cpuA).Seconds())
		}
	}
	r.RSSRatio = float64(max(0, r.PeakRSS-base)) / float64(st.memory)
	r.Bytes = out.Len()
	var res struct {
		Value json.RawMessage `json:"value"`
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	switch {
	case cpuA < 0 && out.Len() == 0:
		r.Code = "NO_ANSWER"
	case json.Unmarshal(out.Bytes(), &res) != nil:
		r.Code = "BAD_JSON"
	case res.Error != nil:
		r.Code, r.Message = res.Error.Code, cut(res.Error.Message, 300)
	default:
		r.Code = "OK"
	}
	r.Code = checkAnswer(&c, r.Code, res.Value, out.String())
	r.Crash = crashSignature(stderr.String())
	exitOK := werr == nil
	if ee, ok := werr.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		exitOK = true // the program failed: exitFail
	}
	r.Survived = r.Crash == "" && (exitOK || r.Lingered) && r.Code != "NO_ANSWER" && r.Code != "BAD_JSON"
	if !r.Survived && r.Crash == "" {
		r.Crash = cut(fmt.Sprintf("exit %v%s", werr, stderr.suffix()), 200)
	}
	return r, nil
}
