package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// syntheticReport is a report with known figures: two engines' worth of
// rows for goja (wazero unavailable), a failed row, and both sweeps.
func syntheticReport() *Report {
	r := newReport(Options{Via: ViaInProcess, N: 10, Warmup: 2, Concurrency: 1})
	r.Started = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	r.Engines = []EngineStatus{{Name: "goja", Available: true}, {Name: "wazero", Reason: "the artifact is missing"}}
	row := func(mode, workload, family string, param int, median time.Duration) Row {
		return Row{Engine: "goja", Mode: mode, Workload: workload, Family: family, Param: param, Via: ViaInProcess, N: 10, Concurrency: 1,
			Stats:      Stats{Min: median / 2, Median: median, P95: median * 2, P99: median * 3, Max: median * 4, Mean: median},
			Throughput: float64(time.Second) / float64(median), AllocsPerRun: 100, BytesPerRun: 4096}
	}
	for _, mode := range AllModes {
		r.Rows = append(r.Rows,
			row(mode, "trivial", "", 0, 80*time.Microsecond),
			row(mode, "calls10", "calls", 10, 190*time.Microsecond),
		)
	}
	r.Rows = append(r.Rows,
		row(ModePerCall, "repl", "repl", 10000, 40*time.Millisecond),
		row(ModePersistent, "repl", "repl", 10000, 400*time.Microsecond),
		Row{Engine: "goja", Mode: ModePerCall, Workload: "cpu", Via: ViaInProcess, N: 10, Concurrency: 1, Error: "cpu: wrong answer: got 1, want 75025"},
	)
	for _, p := range []struct {
		n      int
		median time.Duration
	}{{1, 100 * time.Microsecond}, {100, 1090 * time.Microsecond}, {1000, 10090 * time.Microsecond}} {
		r.Rows = append(r.Rows, row(ModePerCall, "calls"+formatCount(p.n), "calls", p.n, p.median))
	}
	for _, p := range []struct {
		n      int
		median time.Duration
	}{{1000, 4 * time.Millisecond}, {100000, 400 * time.Millisecond}} {
		r.Rows = append(r.Rows, row(ModePerCall, "repl"+formatCount(p.n), "repl", p.n, p.median))
		prow := row(ModePersistent, "repl"+formatCount(p.n), "repl", p.n, time.Duration(p.n)*40*time.Nanosecond)
		prow.HeapPerEnv, prow.Setup = int64(p.n)*600, time.Duration(p.n)*4*time.Microsecond
		r.Rows = append(r.Rows, prow)
	}
	r.Elapsed = 3 * time.Second
	r.derive()
	return r
}

func TestDerive(t *testing.T) {
	r := syntheticReport()
	if !r.Failed() {
		t.Errorf("Failed: got false, want true (the cpu row failed)")
	}
	var repl *Speedup
	for i, s := range r.Speedups {
		if s.Workload == "repl" {
			repl = &r.Speedups[i]
		}
		if !strings.HasPrefix(s.Workload, "repl") {
			t.Errorf("speed-up for %s: want speed-ups only for stateful workloads", s.Workload)
		}
	}
	if repl == nil || repl.Factor != 100 || repl.Param != 10000 {
		t.Errorf("repl speed-up: got %+v, want factor 100 at 10000 records", repl)
	}
	if len(r.Sweeps) != 3 {
		t.Fatalf("sweeps: got %d, want 3 (calls per-call, repl per-call, repl persistent)", len(r.Sweeps))
	}
	calls := r.Sweeps[0]
	if calls.Family != "calls" || len(calls.Points) != 4 {
		t.Fatalf("first sweep: got %s with %d points, want calls with 4", calls.Family, len(calls.Points))
	}
	// 90µs fixed + 10µs per call... marginal cost is exactly 10µs a call.
	for _, p := range calls.Points[1:] {
		if p.Marginal != 10*time.Microsecond {
			t.Errorf("calls=%d marginal: got %v, want 10µs", p.Param, p.Marginal)
		}
	}
	if calls.MaxExponent > 1 || calls.MaxExponent < 0.9 {
		t.Errorf("calls max exponent: got %v, want in [0.9, 1] for linear growth with a fixed cost", calls.MaxExponent)
	}
	if e := r.Sweeps[1].MaxExponent; math.Abs(e-1) > 1e-9 {
		t.Errorf("repl per-call max exponent: got %v, want 1", e)
	}
}

// TestJSONSchema checks the document `codemode bench --json` prints: its
// keys and their JSON types, which scripts depend on.
func TestJSONSchema(t *testing.T) {
	var buf bytes.Buffer
	if err := syntheticReport().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	checkSchema(t, buf.Bytes())
}

func checkSchema(t *testing.T, doc []byte) {
	t.Helper()
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decoding the document: %v", err)
	}
	if dec.More() {
		t.Errorf("the output holds more than one JSON document")
	}
	const (
		str = "string"
		num = "number"
		boo = "bool"
		arr = "array"
		obj = "object"
	)
	typeOf := func(v any) string {
		switch v.(type) {
		case string:
			return str
		case float64:
			return num
		case bool:
			return boo
		case []any:
			return arr
		case map[string]any:
			return obj
		}
		return "null"
	}
	expect := func(where string, m map[string]any, want map[string]string) {
		t.Helper()
		for k, typ := range want {
			v, ok := m[k]
			if !ok {
				t.Errorf("%s: missing key %q", where, k)
				continue
			}
			if got := typeOf(v); got != typ {
				t.Errorf("%s.%s: got %s, want %s", where, k, got, typ)
			}
		}
	}
	expect("report", m, map[string]string{
		"schema": str, "go": str, "os": str, "arch": str, "cpus": num, "via": str, "n": num, "warmup": num,
		"concurrency": num, "started": str, "elapsed_ns": num, "engines": arr, "rows": arr, "speedups": arr, "sweeps": arr,
	})
	if m["schema"] != Schema {
		t.Errorf("schema: got %v, want %q", m["schema"], Schema)
	}
	each := func(key string, fn func(where string, v map[string]any)) {
		list, _ := m[key].([]any)
		for i, v := range list {
			o, ok := v.(map[string]any)
			if !ok {
				t.Errorf("%s[%d]: got %s, want object", key, i, typeOf(v))
				continue
			}
			fn(key+"["+formatCount(i)+"]", o)
		}
	}
	each("engines", func(where string, e map[string]any) {
		expect(where, e, map[string]string{"name": str, "available": boo})
		if e["available"] == false {
			expect(where, e, map[string]string{"reason": str})
		}
	})
	each("rows", func(where string, r map[string]any) {
		expect(where, r, map[string]string{"engine": str, "mode": str, "workload": str, "via": str, "n": num, "concurrency": num,
			"calls": num, "latency": obj, "throughput_per_s": num, "allocs_per_run": num, "bytes_per_run": num})
		if _, failed := r["error"]; failed {
			expect(where, r, map[string]string{"error": str})
			return
		}
		lat, _ := r["latency"].(map[string]any)
		expect(where+".latency", lat, map[string]string{"min_ns": num, "median_ns": num, "p95_ns": num, "p99_ns": num, "max_ns": num, "mean_ns": num})
		// Optional: present for persistent rows in process (omitted when 0).
		for _, k := range []string{"heap_per_env_bytes", "rss_per_env_bytes", "setup_ns", "family", "param"} {
			if v, ok := r[k]; ok && typeOf(v) != num && !(k == "family" && typeOf(v) == str) {
				t.Errorf("%s.%s: got %s, want a number", where, k, typeOf(v))
			}
		}
	})
	each("speedups", func(where string, s map[string]any) {
		expect(where, s, map[string]string{"engine": str, "workload": str, "param": num, "per_call_median_ns": num, "persistent_median_ns": num, "factor": num})
	})
	each("sweeps", func(where string, s map[string]any) {
		expect(where, s, map[string]string{"family": str, "engine": str, "mode": str, "points": arr, "max_exponent": num})
		for _, p := range s["points"].([]any) {
			expect(where+".points", p.(map[string]any), map[string]string{"param": num, "median_ns": num, "marginal_ns": num, "exponent": num})
		}
	})
}

func TestJSONRoundTrip(t *testing.T) {
	r := syntheticReport()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if got, want := back.Rows[0].Stats, r.Rows[0].Stats; got != want {
		t.Errorf("round-tripped latency: got %+v, want %+v", got, want)
	}
}

func TestTable(t *testing.T) {
	var buf bytes.Buffer
	if err := syntheticReport().WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"wazero: unavailable (the artifact is missing)",
		"goja    per-call    trivial",
		"FAIL goja per-call cpu: cpu: wrong answer",
		"repl      10k records: 40.0ms → 400µs = 100×",
		"calls goja    per-call   1=100µs, 10=190µs (+10.0µs/call)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table: missing %q in\n%s", want, out)
		}
	}
}
