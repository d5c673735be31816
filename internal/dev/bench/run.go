package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/runtime"
)

// Options configures Run. A zero field means the default in its comment.
type Options struct {
	// Engines to run. If empty, goja and wazero (each if available).
	Engines []string
	// Modes to run: ModePerCall, ModePersistent. If empty, both.
	Modes []string
	// Workloads to run. If nil, the standard set (Workloads), or with Via
	// "mcp" the ones whose cost is not all inside the engine (trivial,
	// calls10, parallel10, repl).
	Workloads []*Workload
	// Sweep adds the growth sweep (SweepWorkloads).
	Sweep bool
	// FixtureDir, if set, adds FixtureWorkloads(FixtureDir): the recorded
	// calls of each recording in it, replayed.
	FixtureDir string
	// N is the number of timed runs per row. If zero, DefaultN. Heavy sweep
	// points run N/Workload.Scale times, at least minRuns.
	N int
	// Warmup is the number of untimed runs per row before timing. If zero,
	// N/10, at least 2 and at most 20.
	Warmup int
	// RowTime bounds the timed loop of one row: it stops after N runs or
	// RowTime, whichever comes first, but not before minRuns runs (the row
	// is then marked TimeCapped); warm-up stops after a quarter of it. If
	// zero, DefaultRowTime; negative means no bound.
	RowTime time.Duration
	// Concurrency is the number of workers (and agents) running at once.
	// If zero, 1.
	Concurrency int
	// Via is "" (in process, the default), "mcp" (code_run through
	// `codemode serve` over stdio) or "http" (code_run against a running
	// server at URL, over streamable HTTP: a replica, or a fleet's nginx).
	Via string
	// URL is the server Via "http" measures. Its engine and mode must be
	// the one engine and mode of the run (checked with code_debug). If
	// empty, each row starts `codemode serve --listen` on a loopback port
	// of its own (Executable) and measures that.
	URL string
	// Peer, if set, adds after every row the same row against the
	// same-protocol peer (engine PeerEngine), Via "mcp" or "http" without
	// a URL: the two are measured by the same client, interleaved.
	Peer *Peer
	// Client is the MCP client of Via "mcp" (and of the peer over stdio):
	// ClientSDK (the default, if empty) or ClientRaw.
	Client string
	// Executable is the codemode binary Via "mcp" spawns. If empty,
	// os.Executable().
	Executable string
	// Progress, if not nil, receives a progress line (rewritten in place
	// with \r) while rows run. Pass a terminal only.
	Progress io.Writer
}

// DefaultN is the default number of timed runs per row.
const DefaultN = 50

// DefaultRowTime is the default Options.RowTime: it keeps a default run of
// both engines and modes (24 rows) within two minutes at any N.
const DefaultRowTime = 3 * time.Second

// minRuns is the least number of timed runs a row makes.
const minRuns = 10

// Via values.
const (
	ViaInProcess = "in-process"
	ViaMCP       = "mcp"
	ViaHTTP      = "http"
)

// AllEngines are the engines Run tries by default.
var AllEngines = runtime.Engines()

// AllModes are the modes Run runs by default.
var AllModes = []string{ModePerCall, ModePersistent}

func (o Options) withDefaults() Options {
	if len(o.Engines) == 0 {
		o.Engines = AllEngines
	}
	if len(o.Modes) == 0 {
		o.Modes = AllModes
	}
	if o.Via == "" {
		o.Via = ViaInProcess
	}
	if o.Workloads == nil {
		if o.Via == ViaMCP || o.Via == ViaHTTP {
			for _, w := range Workloads() {
				switch w.Name {
				case "trivial", "calls10", "parallel10", "repl":
					o.Workloads = append(o.Workloads, w)
				}
			}
		} else {
			o.Workloads = Workloads()
		}
	}
	if o.Sweep {
		o.Workloads = append(slices.Clip(o.Workloads), SweepWorkloads()...)
	}
	// A workload named twice (calls10 is standard and a sweep point) runs
	// once.
	have := map[string]bool{}
	o.Workloads = slices.DeleteFunc(slices.Clone(o.Workloads), func(w *Workload) bool {
		dup := have[w.Name]
		have[w.Name] = true
		return dup
	})
	if o.N <= 0 {
		o.N = DefaultN
	}
	if o.Warmup <= 0 {
		o.Warmup = min(20, max(2, o.N/10))
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.RowTime == 0 {
		o.RowTime = DefaultRowTime
	}
	return o
}

// Run runs every (engine, mode, workload) row and returns the report. An
// unavailable engine is reported, not an error; a row whose runs fail or
// give a wrong answer carries its error (Report.Failed). Run returns an
// error only for bad options or when ctx ends.
func Run(ctx context.Context, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	if opts.FixtureDir != "" {
		fws, err := FixtureWorkloads(opts.FixtureDir)
		if err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		opts.Workloads = append(slices.Clip(opts.Workloads), fws...)
	}
	switch opts.Via {
	case ViaInProcess, ViaMCP:
	case ViaHTTP:
		if opts.URL != "" && (len(opts.Engines) != 1 || len(opts.Modes) != 1) {
			return nil, fmt.Errorf("bench: via %q measures the server at URL: give its one engine and mode", ViaHTTP)
		}
	default:
		return nil, fmt.Errorf("bench: unknown via %q (want %q or %q)", opts.Via, ViaMCP, ViaHTTP)
	}
	switch opts.Client {
	case "":
		if opts.Via == ViaMCP {
			opts.Client = ClientSDK
		}
	case ClientSDK, ClientRaw:
		if opts.Via != ViaMCP {
			return nil, fmt.Errorf("bench: a client is chosen via %q only", ViaMCP)
		}
	default:
		return nil, fmt.Errorf("bench: unknown client %q (want %q or %q)", opts.Client, ClientSDK, ClientRaw)
	}
	for _, m := range opts.Modes {
		if m != ModePerCall && m != ModePersistent {
			return nil, fmt.Errorf("bench: unknown mode %q (want %q or %q)", m, ModePerCall, ModePersistent)
		}
	}
	if opts.Peer != nil {
		if opts.Via == ViaInProcess || opts.URL != "" {
			return nil, fmt.Errorf("bench: the peer runs via %q, or via %q without a URL", ViaMCP, ViaHTTP)
		}
		if err := CheckPeer(opts.Peer); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
	}
	spawns := opts.Via == ViaMCP || (opts.Via == ViaHTTP && opts.URL == "")
	if spawns && opts.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("bench: locating codemode for --via mcp: %w", err)
		}
		opts.Executable = exe
	}
	rep := newReport(opts)
	start := time.Now()
	var engines []string
	for _, e := range opts.Engines {
		if !runtime.KnownEngine(e) {
			return nil, fmt.Errorf("bench: unknown engine %q (want one of %q)", e, runtime.Engines())
		}
		st := EngineStatus{Name: e, Available: true}
		if opts.Via == ViaHTTP && opts.URL != "" {
			// The server's engine: newHTTPTarget checks it is this one.
			engines = append(engines, e)
		} else if err := checkEngine(e); err != nil {
			st.Available, st.Reason = false, err.Error()
		} else {
			engines = append(engines, e)
		}
		rep.Engines = append(rep.Engines, st)
	}
	total := len(engines) * len(opts.Modes) * len(opts.Workloads)
	if opts.Peer != nil && len(engines) > 0 {
		total += len(opts.Modes) * len(opts.Workloads)
	}
	p := &progress{w: opts.Progress, total: total}
	// Targets of other processes are closed in the background: a `codemode
	// serve` that is slow to exit (it waits for its upstream servers) must
	// not stall the next row, and costs it no CPU while it waits.
	var closing sync.WaitGroup
	defer closing.Wait()
	for _, e := range engines {
		for _, m := range opts.Modes {
			for _, w := range opts.Workloads {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				p.row(e, m, w.Name)
				row := runRow(ctx, opts, e, m, w, p, &closing)
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				rep.Rows = append(rep.Rows, row)
				if opts.Peer != nil && e == engines[0] {
					// The peer's row right after ours: the same load.
					p.row(PeerEngine, m, w.Name)
					row := runRow(ctx, opts, PeerEngine, m, w, p, &closing)
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					rep.Rows = append(rep.Rows, row)
				}
			}
		}
	}
	p.finish()
	rep.Elapsed = time.Since(start)
	rep.derive()
	return rep, nil
}

func newTarget(opts Options, engine, mode string, w *Workload) (target, error) {
	if engine == PeerEngine {
		if len(w.fixtures) > 0 || w.Family == "repl" || w.Setup != "" {
			return nil, fmt.Errorf("the peer runs programs without fixtures or top-level state only (not %s)", w.Name)
		}
		if opts.Via == ViaHTTP {
			return newSpawnedHTTPTarget(opts.Peer, opts.Executable, engine, mode, opts.Concurrency)
		}
		return newPeerStdioTarget(opts.Peer, opts.Executable, mode, opts.Concurrency, opts.Client)
	}
	switch opts.Via {
	case ViaMCP:
		if len(w.fixtures) == 0 {
			return newMCPTarget(opts.Executable, engine, mode, opts.Concurrency, "", opts.Client)
		}
		cfg, remove, err := fixtureConfig(w)
		if err != nil {
			return nil, err
		}
		t, err := newMCPTarget(opts.Executable, engine, mode, opts.Concurrency, cfg, opts.Client)
		if err != nil {
			remove()
			return nil, err
		}
		t.cleanup = remove
		return t, nil
	case ViaHTTP:
		if opts.URL == "" {
			if len(w.fixtures) > 0 {
				return nil, fmt.Errorf("fixture workloads run in process or via %q", ViaMCP)
			}
			return newSpawnedHTTPTarget(nil, opts.Executable, engine, mode, opts.Concurrency)
		}
		return newHTTPTarget(opts.URL, engine, mode, opts.Concurrency)
	}
	return newStack(engine, mode, opts.Concurrency, w.fixtures)
}

// runRow times one workload on a fresh target, so that no row inherits
// another's environments or heap.
func runRow(ctx context.Context, opts Options, engine, mode string, w *Workload, p *progress, closing *sync.WaitGroup) Row {
	persistent := mode == ModePersistent
	n := opts.N
	if w.Scale > 1 {
		n = max(min(minRuns, opts.N), opts.N/w.Scale)
	}
	conc := opts.Concurrency
	row := Row{Engine: engine, Mode: mode, Workload: w.Name, Family: w.Family, Param: w.Param, Via: opts.Via, N: n, Concurrency: conc, Calls: w.Calls}
	fail := func(err error) Row {
		row.Error = err.Error()
		return row
	}
	t, err := newTarget(opts, engine, mode, w)
	if err != nil {
		return fail(err)
	}
	code := w.Program(persistent)
	inProcess := opts.Via == ViaInProcess
	if inProcess {
		defer t.close()
	} else {
		closing.Add(1)
		defer func() {
			go func() {
				defer closing.Done()
				t.close()
			}()
		}()
	}

	// Environments: in persistent mode each agent's first run creates its
	// environment, which then holds the workload's state; measure what
	// that costs the heap.
	var before memSample
	if persistent && inProcess {
		before = sampleMemory()
	}
	if persistent {
		var setup []time.Duration
		for a := range conc {
			first, want := w.Setup, json.RawMessage(nil)
			if first == "" {
				first = code
			}
			t0 := time.Now()
			v, err := t.run(ctx, a, first)
			setup = append(setup, time.Since(t0))
			if err != nil {
				return fail(fmt.Errorf("setup: %w", err))
			}
			if w.Setup == "" {
				if err := w.Check(v); err != nil {
					return fail(err)
				}
			} else if want = json.RawMessage(strconv.Itoa(w.Param)); string(v) != string(want) {
				return fail(fmt.Errorf("%s setup: got %.100s, want %s", w.Name, v, want))
			}
		}
		row.Setup = Summarize(setup).Median
	}
	if persistent && inProcess {
		after := sampleMemory()
		row.HeapPerEnv = max(0, after.heap-before.heap) / int64(conc)
		row.RSSPerEnv = max(0, after.rss-before.rss) / int64(conc)
	}

	// Warm-up: every agent runs, so every pooled path is hot.
	warm := max(opts.Warmup, conc)
	warmStart := time.Now()
	for i := range warm {
		if i >= conc && opts.RowTime > 0 && time.Since(warmStart) > opts.RowTime/4 {
			break
		}
		v, err := t.run(ctx, i%conc, code)
		if err == nil {
			err = w.Check(v)
		}
		if err != nil {
			return fail(fmt.Errorf("warm-up: %w", err))
		}
	}

	// Timed runs: conc workers, each with its own agent, claim run indexes
	// until n are done or one fails. Answers are checked after the loop so
	// that neither the latencies nor the allocation counts include the
	// check.
	samples := make([]time.Duration, n)
	values := make([]json.RawMessage, n)
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var stop atomic.Bool
	var wg sync.WaitGroup
	var ms0, ms1 goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&ms0)
	procs, _ := t.(interface{ processes() []*exec.Cmd })
	var cpu0 time.Duration
	cpuOK := false
	var self0 time.Duration
	selfOK := false
	if procs != nil {
		cpu0, cpuOK = processCPU(procs.processes())
	}
	if !inProcess {
		self0, selfOK = cpuTime()
	}
	t0 := time.Now()
	deadline := t0.Add(opts.RowTime)
	var capped atomic.Bool
	for a := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if i >= minRuns && opts.RowTime > 0 && time.Now().After(deadline) {
					capped.Store(true)
					return
				}
				s := time.Now()
				v, err := t.run(ctx, a, code)
				samples[i] = time.Since(s)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("run %d: %w", i+1, err) })
					stop.Store(true)
					return
				}
				values[i] = v
				p.tick()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(t0)
	var cpu, self time.Duration
	if selfOK {
		self1, ok := cpuTime()
		self, selfOK = self1-self0, ok
	}
	if cpuOK {
		if cpu1, ok := processCPU(procs.processes()); ok {
			cpu = cpu1 - cpu0
		} else {
			cpuOK = false
		}
	}
	goruntime.ReadMemStats(&ms1)
	if firstErr != nil {
		return fail(firstErr)
	}
	// With a time cap, indexes claimed after the deadline were not run.
	done := samples[:0]
	for i, v := range values {
		if v == nil {
			continue
		}
		if err := w.Check(v); err != nil {
			return fail(fmt.Errorf("run %d: %w", i+1, err))
		}
		done = append(done, samples[i])
	}
	n = len(done)
	row.N, row.TimeCapped = n, capped.Load()
	row.Stats = Summarize(done)
	row.Throughput = float64(n) / wall.Seconds()
	if cpuOK && n > 0 {
		// Over the runs made, which a time cap makes fewer than asked.
		row.ServerCPU = cpu / time.Duration(n)
	}
	if selfOK && n > 0 {
		row.ClientCPU = self / time.Duration(n)
	}
	if inProcess {
		row.AllocsPerRun = int64(ms1.Mallocs-ms0.Mallocs) / int64(n)
		row.BytesPerRun = int64(ms1.TotalAlloc-ms0.TotalAlloc) / int64(n)
	}
	return row
}

// memSample is the live Go heap after a collection, and the process's
// resident set (which also counts the wazero engine's linear memories,
// mapped outside the Go heap).
type memSample struct{ heap, rss int64 }

func sampleMemory() memSample {
	goruntime.GC()
	goruntime.GC() // the second cycle frees what the first one's finalizers released
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return memSample{heap: int64(ms.HeapAlloc), rss: residentBytes()}
}

// residentBytes is the resident set size from /proc/self/statm, or 0 where
// there is none.
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// progress writes "[row/total] engine mode workload done/n" to a terminal,
// at most every 100ms.
type progress struct {
	w     io.Writer
	total int

	mu    sync.Mutex
	index int
	label string
	done  int
	last  time.Time
	width int
}

func (p *progress) row(engine, mode, workload string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	p.index++
	p.label = fmt.Sprintf("[%d/%d] %s %s %s", p.index, p.total, engine, mode, workload)
	p.done = 0
	p.writeLocked()
	p.mu.Unlock()
}

func (p *progress) tick() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	p.done++
	if time.Since(p.last) >= 100*time.Millisecond {
		p.writeLocked()
	}
	p.mu.Unlock()
}

func (p *progress) writeLocked() {
	line := p.label
	if p.done > 0 {
		line += fmt.Sprintf(" %d runs", p.done)
	}
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.width = len(line)
	p.last = time.Now()
}

func (p *progress) finish() {
	if p.w == nil || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
}
