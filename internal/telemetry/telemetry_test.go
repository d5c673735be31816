package telemetry_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/edge/front"
	"github.com/codemode/codemode/internal/edge/httpfence"
	"github.com/codemode/codemode/internal/edge/upstream"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/telemetry"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// host is codemode wired as cmd wires it, with telemetry, over in-memory
// transports: a client session on the front, the fake MCP server upstream.
type host struct {
	t      *testing.T
	tel    *telemetry.Telemetry
	exp    *tracetest.InMemoryExporter
	reg    *tools.Registry
	plugin *codemode.Plugin
	mgr    *upstream.Manager
	cs     *mcp.ClientSession
}

func newHost(t *testing.T, opts telemetry.Options, server config.Server, mode runtime.Mode) *host {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := &host{t: t}
	if opts.Traces {
		h.exp = tracetest.NewInMemoryExporter()
		opts.SpanExporter = h.exp
	}
	tel, err := telemetry.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	h.tel = tel
	t.Cleanup(func() { tel.Shutdown(context.Background()) })
	h.reg = tools.New(tools.Options{})
	if tel.Enabled() {
		t.Cleanup(h.reg.Use(tel.Middleware()))
	}
	hs := scope.NewHost("host")
	t.Cleanup(func() { hs.Dispose() })
	preset := hs.Child(scope.KindPreset, "codemode")
	uopts := upstream.Options{Trace: tel.UpstreamTrace, WrapHTTP: tel.WrapHTTP}
	if server.URL == "" {
		uopts.Transport = func(string, config.Server) (mcp.Transport, error) {
			ct, st := mcp.NewInMemoryTransports()
			if _, err := fakemcp.NewServer().Connect(context.Background(), st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		}
	}
	h.mgr, err = upstream.Start(ctx, h.reg, map[string]config.Server{"fake": server}, uopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.mgr.Close() })
	if err := h.mgr.WaitReady(ctx, "fake"); err != nil {
		t.Fatal(err)
	}
	h.plugin, err = codemode.Mount(h.reg, preset, codemode.Options{Engine: runtime.EngineGoja, Mode: mode, Observers: []codemode.RunObserver{tel.Observer()}})
	if err != nil {
		t.Fatal(err)
	}
	unobserve, err := tel.Observe(telemetry.Sources{
		Environments: func() (int, map[string]int64) {
			return h.plugin.Environments().Len(), h.plugin.Environments().Evictions()
		},
		Engine:    h.plugin.Runtime().Engine(),
		Warm:      h.plugin.Runtime().Warm,
		Upstreams: h.mgr.Status,
		Memory:    func() (int64, int64) { g := h.plugin.Runtime().Governor(); return g.InUse(), g.Budget() },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unobserve)
	srv, err := front.New(ctx, front.Options{Registry: h.reg, Preset: preset, CallContext: tel.CallContext})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st); err != nil {
		t.Fatal(err)
	}
	h.cs, err = mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.cs.Close() })
	return h
}

// run sends code_run with meta as the request's _meta.
func (h *host) run(code string, meta mcp.Meta) *mcp.CallToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Meta: meta, Name: "code_run", Arguments: map[string]any{"code": code}})
	if err != nil {
		h.t.Fatal(err)
	}
	return res
}

func (h *host) spans() tracetest.SpanStubs {
	h.t.Helper()
	if err := h.tel.Flush(context.Background()); err != nil {
		h.t.Fatal(err)
	}
	return h.exp.GetSpans()
}

func attr(s tracetest.SpanStub, key string) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func attrString(s tracetest.SpanStub, key string) string {
	v, _ := attr(s, key)
	return v.String()
}

const (
	callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpan  = "00f067aa0ba902b7"
)

// threeCalls makes three nested calls: the upstream's echo, a discovery
// tool, and a tool nothing resolves (caught). It returns the _meta echo
// received.
const threeCalls = `
const e = await tools.mcp__fake__echo({ text: "hi" });
console.log("echoed", e.text);
await tools.code_tools_search({ query: "ticker" });
try { await tools["mcp__fake__nope"]({}); } catch (err) { console.warn(err.code); }
return e.meta;`

func TestSpanTree(t *testing.T) {
	h := newHost(t, telemetry.Options{Traces: true}, config.Server{Command: "in-memory"}, runtime.ModePerCall)
	res := h.run(threeCalls, mcp.Meta{"traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"})
	if res.IsError {
		t.Fatalf("code_run failed: %+v", res.Content[0])
	}
	var out struct {
		Value map[string]any `json:"value"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	spans := h.spans()
	byName := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byName[s.Name] = s
		if got := s.SpanContext.TraceID().String(); got != callerTrace {
			t.Errorf("span %q is in trace %s, want the caller's %s", s.Name, got, callerTrace)
		}
	}
	root, ok := byName["execute_tool code_run"]
	if !ok {
		t.Fatalf("no code_run span among %d spans: %v", len(spans), names(spans))
	}
	if got := root.Parent.SpanID().String(); got != callerSpan || !root.Parent.IsRemote() {
		t.Errorf("code_run's parent is %s (remote %v), want the caller's span %s", got, root.Parent.IsRemote(), callerSpan)
	}
	for key, want := range map[string]string{
		"gen_ai.tool.call.id": "mcp_1", "codemode.engine": "goja", "codemode.mode": "per-call",
		"codemode.outcome": "ok", "codemode.run.outcome": "ok", "codemode.environment": "fresh", "codemode.run.calls": "3",
		"codemode.code.bytes": "", "codemode.code.sha256": "",
	} {
		got, ok := attr(root, key)
		if !ok || (want != "" && got.String() != want) {
			t.Errorf("code_run span: %s = %q (present %v), want %q", key, got.String(), ok, want)
		}
	}
	if len(root.Events) != 2 || attrOf(root.Events[0].Attributes, "codemode.log.text") != "echoed hi" || attrOf(root.Events[1].Attributes, "codemode.log.text") != "UNKNOWN_TOOL" {
		t.Errorf("code_run events: got %+v, want the two console lines", root.Events)
	}
	for _, c := range []struct{ name, id, outcome, decision string }{
		{"execute_tool mcp__fake__echo", "mcp_1:ptc:1", "ok", "allow"},
		{"execute_tool code_tools_search", "mcp_1:ptc:2", "ok", "allow"},
		{"execute_tool (unknown)", "mcp_1:ptc:3", "UNKNOWN_TOOL", ""},
	} {
		s, ok := byName[c.name]
		if !ok {
			t.Errorf("no span %q among %v", c.name, names(spans))
			continue
		}
		if s.Parent.SpanID() != root.SpanContext.SpanID() {
			t.Errorf("%s: parent %s, want code_run's %s", c.name, s.Parent.SpanID(), root.SpanContext.SpanID())
		}
		if got := attrString(s, "gen_ai.tool.call.id"); got != c.id {
			t.Errorf("%s: call id %q, want %q", c.name, got, c.id)
		}
		if got := attrString(s, "codemode.outcome"); got != c.outcome {
			t.Errorf("%s: outcome %q, want %q", c.name, got, c.outcome)
		}
		if got := attrString(s, "codemode.policy.decision"); got != c.decision {
			t.Errorf("%s: decision %q, want %q", c.name, got, c.decision)
		}
	}
	client, ok := byName["tools/call echo"]
	if !ok {
		t.Fatalf("no upstream client span among %v", names(spans))
	}
	if client.Parent.SpanID() != byName["execute_tool mcp__fake__echo"].SpanContext.SpanID() {
		t.Errorf("the client span's parent is %s, want the echo call's span", client.Parent.SpanID())
	}
	want := "00-" + callerTrace + "-" + client.SpanContext.SpanID().String() + "-01"
	if got := out.Value["traceparent"]; got != want {
		t.Errorf("the upstream received traceparent %v, want %s (the client span)", got, want)
	}
}

func names(spans tracetest.SpanStubs) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

func attrOf(kvs []attribute.KeyValue, key string) string {
	for _, kv := range kvs {
		if string(kv.Key) == key {
			return kv.Value.String()
		}
	}
	return ""
}

// A request without a trace context starts a new trace; the HTTP
// upstream gets the trace context in its headers and in _meta.
func TestHTTPUpstreamHeaders(t *testing.T) {
	var mu sync.Mutex
	var headers []string
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fakemcp.NewServer() }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tp := r.Header.Get("traceparent"); tp != "" {
			mu.Lock()
			headers = append(headers, tp)
			mu.Unlock()
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close) // after the manager (registered later) closed its streams
	h := newHost(t, telemetry.Options{Traces: true}, config.Server{URL: hs.URL}, runtime.ModePerCall)
	res := h.run(`return (await tools.mcp__fake__echo({ text: "x" })).meta.traceparent;`, nil)
	if res.IsError {
		t.Fatalf("code_run failed: %+v", res.Content[0])
	}
	var client tracetest.SpanStub
	for _, s := range h.spans() {
		if s.Name == "tools/call echo" {
			client = s
		}
	}
	want := "00-" + client.SpanContext.TraceID().String() + "-" + client.SpanContext.SpanID().String() + "-01"
	if !client.SpanContext.IsValid() || client.Parent.IsRemote() {
		t.Fatalf("no local client span: %+v", client)
	}
	var got struct{ Value string }
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &got)
	if got.Value != want {
		t.Errorf("_meta traceparent %q, want %q", got.Value, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(headers) != 1 || headers[0] != want {
		t.Errorf("traceparent headers the server saw: %q, want exactly the tools/call's %q", headers, want)
	}
}

// HTTP headers carry the caller's trace context when _meta does not.
func TestCallContextFromHeaders(t *testing.T) {
	tel, err := telemetry.New(context.Background(), telemetry.Options{SpanExporter: tracetest.NewInMemoryExporter()})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	h := http.Header{}
	h.Set("Traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
	for _, c := range []struct {
		name   string
		meta   mcp.Meta
		header http.Header
		want   string
	}{
		{"header", nil, h, callerSpan},
		{"meta wins", mcp.Meta{"traceparent": "00-" + callerTrace + "-0000000000000001-01"}, h, "0000000000000001"},
		{"none", nil, nil, "0000000000000000"},
	} {
		ctx := tel.CallContext(context.Background(), c.meta, c.header)
		if got := spanContextOf(ctx); got != c.want {
			t.Errorf("%s: parent span %s, want %s", c.name, got, c.want)
		}
	}
}

func spanContextOf(ctx context.Context) string {
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	_, s := tp.Tracer("t").Start(ctx, "x")
	defer s.End()
	return s.(sdktrace.ReadOnlySpan).Parent().SpanID().String()
}

// Console events per span are bounded.
func TestConsoleEventsBounded(t *testing.T) {
	h := newHost(t, telemetry.Options{Traces: true}, config.Server{Command: "in-memory"}, runtime.ModePerCall)
	h.run(`for (let i = 0; i < 200; i++) console.log("line " + i + " " + "x".repeat(3000));`, nil)
	for _, s := range h.spans() {
		if s.Name != "execute_tool code_run" {
			continue
		}
		if len(s.Events) != 64 {
			t.Errorf("%d events, want 64", len(s.Events))
		}
		if got := attrString(s, "codemode.run.log.events_dropped"); got != "136" {
			t.Errorf("events_dropped = %q, want 136", got)
		}
		for _, ev := range s.Events {
			if n := len(attrOf(ev.Attributes, "codemode.log.text")); n > 1024+len("… [cut: 9999 more bytes]") {
				t.Fatalf("an event's text is %d bytes", n)
			}
		}
		return
	}
	t.Fatal("no code_run span")
}

// Off is the zero Options: nothing to register, no providers.
func TestOff(t *testing.T) {
	for _, env := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"} {
		t.Setenv(env, "")
	}
	tel, err := telemetry.New(context.Background(), telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tel.Enabled() || tel.Tracing() || tel.Metrics() {
		t.Errorf("zero Options: enabled %v, tracing %v, metrics %v; want all off", tel.Enabled(), tel.Tracing(), tel.Metrics())
	}
	if rt := http.DefaultTransport; tel.WrapHTTP(rt) != rt {
		t.Error("WrapHTTP wraps with tracing off")
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	if !telemetry.TracesWanted(false) {
		t.Error("OTEL_EXPORTER_OTLP_ENDPOINT set: tracing should be on")
	}
	t.Setenv("OTEL_SDK_DISABLED", "true")
	if telemetry.TracesWanted(true) {
		t.Error("OTEL_SDK_DISABLED=true: tracing should be off")
	}
}

func TestUnsupportedExporter(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	_, err := telemetry.New(context.Background(), telemetry.Options{Traces: true})
	if err == nil || !strings.Contains(err.Error(), "OTLP only") {
		t.Errorf("got %v, want a refusal of zipkin", err)
	}
}

// Over streamable HTTP, the caller's trace context in the request's headers
// reaches code_run's span through the front (its RequestExtra).
func TestTraceContextFromHTTPHeaders(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tel, err := telemetry.New(context.Background(), telemetry.Options{SpanExporter: exp})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	reg := tools.New(tools.Options{})
	defer reg.Use(tel.Middleware())()
	hs := scope.NewHost("host")
	defer hs.Dispose()
	preset := hs.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{Engine: runtime.EngineGoja, Observers: []codemode.RunObserver{tel.Observer()}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := front.New(ctx, front.Options{Registry: reg, Preset: preset, CallContext: tel.CallContext})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln := httptest.NewUnstartedServer(nil)
	h, err := srv.HTTPHandler(front.HTTPOptions{Fence: httpfence.Config{Listen: ln.Listener.Addr().String()}})
	if err != nil {
		t.Fatal(err)
	}
	ln.Config.Handler = h
	ln.Start()
	t.Cleanup(ln.Close)
	client := &http.Client{Transport: headerRT{"Traceparent": "00-" + callerTrace + "-" + callerSpan + "-01"}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ln.URL + "/mcp", HTTPClient: client}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": "return 1"}}); err != nil || res.IsError {
		t.Fatalf("code_run: %v %+v", err, res)
	}
	if err := tel.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Parent.SpanID().String() != callerSpan || spans[0].SpanContext.TraceID().String() != callerTrace {
		t.Fatalf("spans %v: want code_run under the caller's span from the headers", names(spans))
	}
}

type headerRT map[string]string

func (h headerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
