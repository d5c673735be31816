package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/telemetry"
	"github.com/codemode/codemode/runtime"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape reads /metrics the way Prometheus does and parses it with its
// text parser.
func scrape(t *testing.T, h http.Handler) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(rec.Body.String()))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, rec.Body)
	}
	return fams
}

// value is the counter, gauge or histogram count of the family's series
// whose labels include want; -1 when there is none.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	f, ok := fams[name]
	if !ok {
		return -1
	}
	sum, found := 0.0, false
next:
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue next
			}
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	if !found {
		return -1
	}
	return sum
}

func TestMetrics(t *testing.T) {
	h := newHost(t, telemetry.Options{Metrics: true}, config.Server{Command: "in-memory"}, runtime.ModePersistent)
	handler := h.tel.MetricsHandler()
	before := scrape(t, handler)
	if got := value(before, "codemode_runs_total", nil); got != -1 {
		t.Errorf("runs before any run: %v, want no series", got)
	}
	// A known sequence: two good runs (3 nested calls), one that throws,
	// one that does not parse.
	h.run(`await tools.mcp__fake__ticker({ symbol: "A" }); return 1;`, nil)
	h.run(`await tools.mcp__fake__echo({ text: "x" }); await tools.mcp__fake__ticker({ symbol: "B" });`, nil)
	h.run(`throw new Error("no");`, nil)
	h.run(`return (;`, nil)

	fams := scrape(t, handler)
	engine := map[string]string{"codemode_engine": "goja", "codemode_mode": "persistent-in-memory"}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"codemode_runs_total", merge(engine, "codemode_outcome", "ok"), 2},
		{"codemode_runs_total", merge(engine, "codemode_outcome", "RUNTIME_ERROR"), 1},
		{"codemode_runs_total", merge(engine, "codemode_outcome", "SYNTAX_ERROR"), 1},
		{"codemode_run_duration_seconds", engine, 4},
		{"codemode_nested_calls_total", map[string]string{"codemode_server": "fake", "gen_ai_tool_name": "mcp__fake__ticker", "codemode_outcome": "ok"}, 2},
		{"codemode_nested_calls_total", map[string]string{"gen_ai_tool_name": "mcp__fake__echo"}, 1},
		{"codemode_nested_call_duration_seconds", map[string]string{"codemode_server": "fake"}, 3},
		{"mcp_client_operation_duration_seconds", map[string]string{"mcp_method_name": "tools/call", "codemode_server": "fake"}, 3},
		{"codemode_environments", nil, 1}, // the session's agent keeps one
		{"codemode_pool_warm", map[string]string{"codemode_engine": "goja"}, -2},
		{"codemode_memory_reserved_bytes", nil, -2},
		{"codemode_memory_budget_bytes", nil, -2},
		{"codemode_upstream_state", map[string]string{"codemode_server": "fake", "codemode_upstream_state": "ready"}, 1},
		{"codemode_upstream_state", map[string]string{"codemode_server": "fake", "codemode_upstream_state": "restarting"}, 0},
		{"codemode_upstream_restarts_total", map[string]string{"codemode_server": "fake"}, 0},
	} {
		got := value(fams, c.name, c.labels)
		if c.want == -2 { // present, any value
			if got < 0 {
				t.Errorf("%s%v: no series", c.name, c.labels)
			}
			continue
		}
		if got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	// A reset releases the environment: an eviction with its cause.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": "return 2", "reset": true}}); err != nil {
		t.Fatal(err)
	}
	fams = scrape(t, handler)
	if got := value(fams, "codemode_environment_evictions_total", map[string]string{"codemode_eviction_cause": "reset"}); got != 1 {
		t.Errorf("evictions{reset} = %v, want 1", got)
	}
	if got := value(fams, "codemode_environments", nil); got != 1 {
		t.Errorf("environments after the reset run: %v, want 1 (a fresh one)", got)
	}
}

func merge(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}
