package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// startServe starts `codemode serve` with args and returns the addresses
// it reports on stderr by their line's prefix ("serving MCP at " …).
func startServe(t *testing.T, args ...string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, binary, append([]string{"serve"}, args...)...)
	cmd.Dir = t.TempDir()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	got := map[string]string{}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		for _, p := range []string{"serving MCP at ", "metrics at ", "run viewer at "} {
			if _, rest, ok := strings.Cut(line, p); ok {
				got[p] = rest
			}
		}
		if _, ok := got["serving MCP at "]; ok {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	if got["serving MCP at "] == "" {
		t.Fatal("the server did not report its address")
	}
	return got
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// counter sums the samples of a family whose labels include want.
func counter(fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	sum := 0.0
	f := fams[name]
	if f == nil {
		return -1
	}
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
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

func scrapeURL(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	code, body := httpGet(t, url)
	if code != 200 {
		t.Fatalf("%s: %d %s", url, code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return fams
}

// TestServeObservability drives `serve --listen --metrics` through a known
// sequence of runs and reads health, metrics (parsed with Prometheus' text
// parser) and the run viewer's JSON.
func TestServeObservability(t *testing.T) {
	addrs := startServe(t, "--engine", "goja", "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0")
	endpoint := addrs["serving MCP at "]
	base := strings.TrimSuffix(endpoint, "/mcp")
	if addrs["metrics at "] == "" || addrs["run viewer at "] != base+"/runs" {
		t.Fatalf("stderr announced %q", addrs)
	}
	if code, body := httpGet(t, base+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := httpGet(t, base+"/readyz")
		if code == 200 && strings.Contains(body, `"fake":"ready"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never ready: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond) // polling a readiness endpoint, as a load balancer does
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "obs", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, code := range []string{
		`const a = await tools.mcp__fake__ticker({ symbol: "A" });
const b = await tools.mcp__fake__ticker({ symbol: "B" });
await tools.mcp__fake__echo({ text: "x" });
return a.price + b.price;`,
		"const q = await tools.mcp__fake__ticker({ symbol: \"C\" });\nthrow new Error(\"no \" + q.symbol);",
		`return (;`,
	} {
		codeRun(t, cs, code)
	}

	for _, url := range []string{base + "/metrics", addrs["metrics at "]} {
		fams := scrapeURL(t, url)
		for _, c := range []struct {
			name   string
			labels map[string]string
			want   float64
		}{
			{"codemode_runs_total", map[string]string{"codemode_engine": "goja", "codemode_mode": "per-call", "codemode_outcome": "ok"}, 1},
			{"codemode_runs_total", map[string]string{"codemode_outcome": "RUNTIME_ERROR"}, 1},
			{"codemode_runs_total", map[string]string{"codemode_outcome": "SYNTAX_ERROR"}, 1},
			{"codemode_run_duration_seconds", nil, 3},
			{"codemode_nested_calls_total", map[string]string{"codemode_server": "fake", "gen_ai_tool_name": "mcp__fake__ticker", "codemode_outcome": "ok"}, 3},
			{"codemode_nested_calls_total", map[string]string{"gen_ai_tool_name": "mcp__fake__echo"}, 1},
			{"mcp_client_operation_duration_seconds", map[string]string{"codemode_server": "fake"}, 4},
			{"codemode_upstream_state", map[string]string{"codemode_server": "fake", "codemode_upstream_state": "ready"}, 1},
			{"codemode_upstream_restarts_total", map[string]string{"codemode_server": "fake"}, 0},
		} {
			if got := counter(fams, c.name, c.labels); got != c.want {
				t.Errorf("%s: %s%v = %v, want %v", url, c.name, c.labels, got, c.want)
			}
		}
	}

	var list struct {
		Runs []struct {
			ID, Status string
			CallCount  int
		}
	}
	_, body := httpGet(t, base+"/runs/api/runs")
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list.Runs) != 3 {
		t.Fatalf("/runs/api/runs: %v %s", err, body)
	}
	if r := list.Runs[1]; r.ID != "2" || r.Status != "error" || r.CallCount != 1 {
		t.Errorf("run 2 in the list: %+v", r)
	}
	var failed struct {
		Error struct {
			Code string
			Line int
		}
	}
	_, body = httpGet(t, base+"/runs/api/runs/2")
	if err := json.Unmarshal([]byte(body), &failed); err != nil || failed.Error.Code != "RUNTIME_ERROR" || failed.Error.Line != 2 {
		t.Errorf("run 2: %v %s", err, body)
	}
	if code, page := httpGet(t, base+"/runs"); code != 200 || !strings.Contains(page, "<title>codemode · runs</title>") {
		t.Errorf("/runs: %d", code)
	}
}

// Without --no-ui and metrics, /runs and /metrics are not served; health is.
func TestServeNoUI(t *testing.T) {
	addrs := startServe(t, "--engine", "goja", "--listen", "127.0.0.1:0", "--no-ui")
	base := strings.TrimSuffix(addrs["serving MCP at "], "/mcp")
	if _, ok := addrs["run viewer at "]; ok {
		t.Error("--no-ui still announces the run viewer")
	}
	for path, want := range map[string]int{"/runs": 404, "/runs/api/runs": 404, "/metrics": 404, "/healthz": 200} {
		if code, _ := httpGet(t, base+path); code != want {
			t.Errorf("%s: %d, want %d", path, code, want)
		}
	}
}
