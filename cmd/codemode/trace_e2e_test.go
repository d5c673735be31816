package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// TestTraceJaeger checks traces in a real trace backend: Jaeger all-in-one,
// which scripts/trace-e2e builds, starts on loopback (OTLP receivers on,
// in-memory storage) and names in the environment. Without it the test is
// skipped.
func TestTraceJaeger(t *testing.T) {
	query := os.Getenv("CODEMODE_JAEGER_QUERY") // http://host:port of the query API
	if query == "" {
		t.Skip("no Jaeger: run scripts/trace-e2e")
	}
	otlpHTTP, otlpGRPC := os.Getenv("CODEMODE_JAEGER_OTLP_HTTP"), os.Getenv("CODEMODE_JAEGER_OTLP_GRPC")

	t.Run("run over OTLP/HTTP", func(t *testing.T) {
		service := "codemode-e2e-" + randomHex(4)
		prog := filepath.Join(t.TempDir(), "three.js")
		// Three nested calls: the fake MCP server (a real stdio child
		// process) echoing the _meta it received, a discovery tool, and a
		// tool nothing resolves.
		if err := os.WriteFile(prog, []byte(`const e = await tools.mcp__fake__echo({ text: "hi" });
console.log("echoed", e.text);
await tools.code_tools_search({ query: "ticker" });
try { await tools["mcp__fake__nope"]({}); } catch (err) { console.warn(err.code); }
return e.meta;`), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(binary, "run", "--json", prog)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+otlpHTTP, "OTEL_SERVICE_NAME="+service, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("codemode run: %v\n%s", err, stderr.String())
		}
		var res struct {
			Value struct {
				Traceparent string `json:"traceparent"`
			}
			Calls []struct{ ID, Name string }
		}
		if err := json.Unmarshal(out, &res); err != nil || len(res.Calls) != 3 {
			t.Fatalf("output %s: %v", out, err)
		}
		tr := waitTrace(t, query, service, 5)
		root := tr.only(t, "execute_tool code_run")
		if len(root.References) != 0 {
			t.Errorf("code_run has a parent: %+v", root.References)
		}
		for k, want := range map[string]string{"span.kind": "server", "gen_ai.tool.call.id": "cli_1", "codemode.engine": "wazero",
			"codemode.mode": "per-call", "codemode.outcome": "ok", "codemode.run.calls": "3", "codemode.environment": "fresh"} {
			if got := root.tag(k); got != want {
				t.Errorf("code_run: %s = %q, want %q", k, got, want)
			}
		}
		if len(root.Logs) != 2 {
			t.Errorf("code_run has %d console events, want 2", len(root.Logs))
		}
		for _, c := range []struct{ name, id, outcome string }{
			{"execute_tool mcp__fake__echo", "cli_1:ptc:1", "ok"},
			{"execute_tool code_tools_search", "cli_1:ptc:2", "ok"},
			{"execute_tool (unknown)", "cli_1:ptc:3", "UNKNOWN_TOOL"},
		} {
			s := tr.only(t, c.name)
			if s.parent() != root.SpanID {
				t.Errorf("%s: parent %s, want code_run %s", c.name, s.parent(), root.SpanID)
			}
			if got := s.tag("gen_ai.tool.call.id"); got != c.id {
				t.Errorf("%s: call id %q, want %q", c.name, got, c.id)
			}
			if got := s.tag("codemode.outcome"); got != c.outcome {
				t.Errorf("%s: outcome %q, want %q", c.name, got, c.outcome)
			}
		}
		client := tr.only(t, "tools/call echo")
		if client.parent() != tr.only(t, "execute_tool mcp__fake__echo").SpanID || client.tag("span.kind") != "client" {
			t.Errorf("tools/call echo: parent %s kind %q, want the echo call's span, client", client.parent(), client.tag("span.kind"))
		}
		want := "00-" + root.TraceID + "-" + client.SpanID + "-01"
		if res.Value.Traceparent != want {
			t.Errorf("the upstream received traceparent %q, want %q", res.Value.Traceparent, want)
		}
		t.Logf("trace %s: %d spans; the upstream received traceparent %s", root.TraceID, len(tr.Spans), res.Value.Traceparent)
	})

	t.Run("serve continues the caller's trace over OTLP/gRPC", func(t *testing.T) {
		service := "codemode-e2e-" + randomHex(4)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, "serve", "--engine", "goja", "--listen", "127.0.0.1:0")
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+otlpGRPC, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_SERVICE_NAME="+service)
		endpoint := startAndRead(t, cmd, "serving MCP at ")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "trace", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		traceID, spanID := randomHex(16), randomHex(8)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + spanID + "-01"}, Name: "code_run",
			Arguments: map[string]any{"code": `return (await tools.mcp__fake__echo({ text: "x" })).meta.traceparent`}})
		if err != nil || res.IsError {
			t.Fatalf("code_run: %v %+v", err, res)
		}
		cs.Close()
		// SIGTERM drains and exports what is buffered.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		tr := waitTrace(t, query, service, 3)
		root := tr.only(t, "execute_tool code_run")
		if root.TraceID != traceID || root.parent() != spanID {
			t.Errorf("code_run is in trace %s under %s, want the caller's %s under %s", root.TraceID, root.parent(), traceID, spanID)
		}
		client := tr.only(t, "tools/call echo")
		var got string
		b, _ := json.Marshal(res.StructuredContent)
		var sc struct{ Value string }
		_ = json.Unmarshal(b, &sc)
		got = sc.Value
		if want := "00-" + traceID + "-" + client.SpanID + "-01"; got != want {
			t.Errorf("the upstream received %q, want %q", got, want)
		}
	})
}

func startAndRead(t *testing.T, cmd *exec.Cmd, prefix string) string {
	t.Helper()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), prefix); ok {
			go io.Copy(io.Discard, stderr)
			return rest
		}
	}
	t.Fatalf("the server printed no %q line", prefix)
	return ""
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// jaegerTrace is a trace as Jaeger's query API (/api/traces) returns it.
type jaegerTrace struct {
	TraceID string       `json:"traceID"`
	Spans   []jaegerSpan `json:"spans"`
}

type jaegerSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
	Logs []json.RawMessage `json:"logs"`
}

func (s jaegerSpan) tag(key string) string {
	for _, t := range s.Tags {
		if t.Key == key {
			return fmt.Sprint(t.Value)
		}
	}
	return ""
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

func (tr jaegerTrace) only(t *testing.T, name string) jaegerSpan {
	t.Helper()
	var found []jaegerSpan
	for _, s := range tr.Spans {
		if s.OperationName == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		var names []string
		for _, s := range tr.Spans {
			names = append(names, s.OperationName)
		}
		t.Fatalf("%d spans named %q in the trace (spans: %q)", len(found), name, names)
	}
	return found[0]
}

// waitTrace polls Jaeger until service has one trace of at least spans
// spans (the exporter batches, the collector stores asynchronously).
func waitTrace(t *testing.T, query, service string, spans int) jaegerTrace {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		resp, err := http.Get(query + "/api/traces?limit=20&service=" + service)
		if err == nil {
			var body struct{ Data []jaegerTrace }
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err == nil && len(body.Data) == 1 && len(body.Data[0].Spans) >= spans {
				return body.Data[0]
			}
			last = fmt.Sprintf("%d traces", len(body.Data))
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond) // polling the backend's API
	}
	t.Fatalf("Jaeger has no trace of %s with %d spans (last: %s)", service, spans, last)
	return jaegerTrace{}
}
