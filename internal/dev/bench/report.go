package bench

import (
	"encoding/json"
	"io"
	"math"
	goruntime "runtime"
	"slices"
	"time"
)

// Schema names the JSON document's format; it changes when a field changes
// meaning or goes away.
const Schema = "codemode.bench/v1"

// Report is the result of Run. Its JSON form (WriteJSON) is the
// machine-readable output of `codemode bench --json`; every duration is in
// nanoseconds and every size in bytes.
type Report struct {
	Schema      string         `json:"schema"`
	Go          string         `json:"go"`
	OS          string         `json:"os"`
	Arch        string         `json:"arch"`
	CPUs        int            `json:"cpus"`
	Via         string         `json:"via"`
	Client      string         `json:"client,omitempty"` // via mcp: ClientSDK or ClientRaw
	N           int            `json:"n"`
	Warmup      int            `json:"warmup"`
	Concurrency int            `json:"concurrency"`
	RowTime     time.Duration  `json:"row_time_ns"`
	Started     time.Time      `json:"started"`
	Elapsed     time.Duration  `json:"elapsed_ns"`
	Engines     []EngineStatus `json:"engines"`
	Rows        []Row          `json:"rows"`
	// Speedups compare persistent with per-call for the workloads that
	// keep state (repl*), per engine.
	Speedups []Speedup `json:"speedups"`
	// Sweeps are the growth curves, one per family, engine and mode.
	Sweeps []Sweep `json:"sweeps"`
}

// EngineStatus says whether an engine ran, and if not why.
type EngineStatus struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// Row is one (engine, mode, workload) measurement.
type Row struct {
	Engine   string `json:"engine"`
	Mode     string `json:"mode"`
	Workload string `json:"workload"`
	Family   string `json:"family,omitempty"`
	Param    int    `json:"param,omitempty"`
	Via      string `json:"via"`
	// N is the number of timed runs; Concurrency the workers running them.
	N           int `json:"n"`
	Concurrency int `json:"concurrency"`
	// TimeCapped is set when the row stopped at Options.RowTime before
	// running the N it was asked for.
	TimeCapped bool `json:"time_capped,omitempty"`
	// Calls is the number of nested tool calls per run.
	Calls int `json:"calls"`
	// Stats are the latencies of the timed runs (one code_run each).
	Stats Stats `json:"latency"`
	// Throughput is runs per second over the timed loop's wall time.
	Throughput float64 `json:"throughput_per_s"`
	// AllocsPerRun and BytesPerRun are the process's heap allocations
	// (runtime.MemStats Mallocs and TotalAlloc) during the timed loop,
	// divided by N. Zero via MCP (the work is in another process).
	AllocsPerRun int64 `json:"allocs_per_run"`
	BytesPerRun  int64 `json:"bytes_per_run"`
	// HeapPerEnv is, in persistent mode, the live Go heap one environment
	// adds once it holds the workload's state; RSSPerEnv the resident set
	// it adds (which includes wazero's linear memory, outside the Go heap).
	HeapPerEnv int64 `json:"heap_per_env_bytes,omitempty"`
	RSSPerEnv  int64 `json:"rss_per_env_bytes,omitempty"`
	// Setup is, in persistent mode, the median time of each environment's
	// first run (which loads the state of a repl workload).
	Setup time.Duration `json:"setup_ns,omitempty"`
	// ServerCPU is, for a server process the bench started (via mcp, or
	// http without a URL), the CPU time (user + system) of that process
	// and its children (the upstream server) during the timed loop,
	// divided by the runs (Linux /proc; 10 ms ticks, so long loops only).
	// Unlike latency it barely depends on what else the machine runs.
	ServerCPU time.Duration `json:"server_cpu_per_run_ns,omitempty"`
	// ClientCPU is, for a server in another process (via mcp or http),
	// the CPU time of the bench's own process during the timed loop (the
	// MCP client driving the server), divided by the runs: with
	// ServerCPU, what one run costs the machine.
	ClientCPU time.Duration `json:"client_cpu_per_run_ns,omitempty"`
	// Error is why the row failed: a run failed or gave a wrong answer.
	Error string `json:"error,omitempty"`
}

// statsJSON is Stats on the wire: nanoseconds, with explicit names.
type statsJSON struct {
	Min    int64 `json:"min_ns"`
	Median int64 `json:"median_ns"`
	P95    int64 `json:"p95_ns"`
	P99    int64 `json:"p99_ns"`
	Max    int64 `json:"max_ns"`
	Mean   int64 `json:"mean_ns"`
}

// MarshalJSON writes Stats in nanoseconds with explicit names.
func (s Stats) MarshalJSON() ([]byte, error) {
	return json.Marshal(statsJSON{int64(s.Min), int64(s.Median), int64(s.P95), int64(s.P99), int64(s.Max), int64(s.Mean)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Stats) UnmarshalJSON(b []byte) error {
	var v statsJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Stats{time.Duration(v.Min), time.Duration(v.Median), time.Duration(v.P95), time.Duration(v.P99), time.Duration(v.Max), time.Duration(v.Mean)}
	return nil
}

// Speedup is how much faster persistent mode runs a stateful workload than
// per-call mode on one engine: PerCall / Persistent medians.
type Speedup struct {
	Engine     string        `json:"engine"`
	Workload   string        `json:"workload"`
	Param      int           `json:"param"`
	PerCall    time.Duration `json:"per_call_median_ns"`
	Persistent time.Duration `json:"persistent_median_ns"`
	Factor     float64       `json:"factor"`
}

// Sweep is one growth curve.
type Sweep struct {
	Family string       `json:"family"`
	Engine string       `json:"engine"`
	Mode   string       `json:"mode"`
	Points []SweepPoint `json:"points"`
	// MaxExponent is the steepest step of the curve, as the slope of
	// log(median) over log(param) between neighbouring points: about 1 (or
	// less, while fixed costs dominate) for linear growth, 2 for quadratic.
	MaxExponent float64 `json:"max_exponent"`
}

// SweepPoint is one point of a sweep.
type SweepPoint struct {
	Param  int           `json:"param"`
	Median time.Duration `json:"median_ns"`
	// Marginal is the added cost per unit of work (per nested call, per
	// record) since the previous point; 0 at the first point.
	Marginal time.Duration `json:"marginal_ns"`
	// Exponent is the slope from the previous point (see MaxExponent); 0
	// at the first point.
	Exponent float64 `json:"exponent"`
}

func newReport(opts Options) *Report {
	return &Report{
		Schema: Schema, Go: goruntime.Version(), OS: goruntime.GOOS, Arch: goruntime.GOARCH, CPUs: goruntime.NumCPU(),
		Via: opts.Via, Client: opts.Client, N: opts.N, Warmup: opts.Warmup, Concurrency: opts.Concurrency, RowTime: opts.RowTime,
		Started: time.Now().UTC().Truncate(time.Second), Engines: []EngineStatus{}, Rows: []Row{},
	}
}

// Failed reports whether any row failed.
func (r *Report) Failed() bool {
	for _, row := range r.Rows {
		if row.Error != "" {
			return true
		}
	}
	return false
}

// derive computes the speed-ups and sweeps from the rows.
func (r *Report) derive() {
	r.Speedups, r.Sweeps = []Speedup{}, []Sweep{}
	find := func(engine, mode, workload string) (Row, bool) {
		for _, row := range r.Rows {
			if row.Engine == engine && row.Mode == mode && row.Workload == workload && row.Error == "" {
				return row, true
			}
		}
		return Row{}, false
	}
	for _, row := range r.Rows {
		if row.Mode != ModePerCall || row.Error != "" || !isStateful(row.Workload) {
			continue
		}
		p, ok := find(row.Engine, ModePersistent, row.Workload)
		if !ok || p.Stats.Median <= 0 {
			continue
		}
		r.Speedups = append(r.Speedups, Speedup{
			Engine: row.Engine, Workload: row.Workload, Param: row.Param,
			PerCall: row.Stats.Median, Persistent: p.Stats.Median,
			Factor: float64(row.Stats.Median) / float64(p.Stats.Median),
		})
	}
	type key struct{ family, engine, mode string }
	var order []key
	points := map[key][]SweepPoint{}
	for _, row := range r.Rows {
		if row.Family == "" || row.Error != "" {
			continue
		}
		k := key{row.Family, row.Engine, row.Mode}
		if _, ok := points[k]; !ok {
			order = append(order, k)
		}
		points[k] = append(points[k], SweepPoint{Param: row.Param, Median: row.Stats.Median})
	}
	for _, k := range order {
		ps := points[k]
		if len(ps) < 2 {
			continue // one point is no curve
		}
		slices.SortFunc(ps, func(a, b SweepPoint) int { return a.Param - b.Param })
		s := Sweep{Family: k.family, Engine: k.engine, Mode: k.mode, Points: ps}
		for i := 1; i < len(ps); i++ {
			if ps[i].Param == ps[i-1].Param {
				continue
			}
			ps[i].Marginal = (ps[i].Median - ps[i-1].Median) / time.Duration(ps[i].Param-ps[i-1].Param)
			e := Exponent(float64(ps[i-1].Param), float64(ps[i-1].Median), float64(ps[i].Param), float64(ps[i].Median))
			if math.IsNaN(e) {
				continue
			}
			ps[i].Exponent = math.Round(e*1000) / 1000
			s.MaxExponent = max(s.MaxExponent, ps[i].Exponent)
		}
		r.Sweeps = append(r.Sweeps, s)
	}
}

// isStateful reports whether a workload keeps state between runs in
// persistent mode (the repl family).
func isStateful(name string) bool {
	w, ok := Lookup(name)
	return ok && w.Setup != ""
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
