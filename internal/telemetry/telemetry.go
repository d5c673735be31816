// Package telemetry is codemode's OpenTelemetry: traces that join a
// code_run, its nested calls and the upstream MCP servers in one trace, and
// metrics served in the Prometheus text format (docs/observability.md).
//
// # Wiring
//
// Everything goes through hooks that exist for this purpose, so with
// telemetry off nothing is registered and nothing runs:
//
//	t, _ := telemetry.New(ctx, telemetry.Options{Traces: true, Metrics: true})
//	defer t.Shutdown(ctx)
//	remove := reg.Use(t.Middleware())          // a span and metrics for every call
//	popts.Observers = append(popts.Observers, t.Observer()) // code_run's attributes
//	uopts.Trace, uopts.WrapHTTP = t.UpstreamTrace, t.WrapHTTP // client spans, trace context out
//	fopts.CallContext = t.CallContext          // trace context in
//	http.Handle("/metrics", t.MetricsHandler())
//
// # Spans
//
// Every tool call, direct or nested, is a span "execute_tool <tool>" (the
// OpenTelemetry GenAI convention) made by one tools.Middleware; a nested
// call's span is a child of its code_run's, because the program's calls
// run under the code_run call's context. code_run's span gets the run's
// attributes from a codemode.RunObserver, and its console lines as events.
// An upstream tools/call is a client span "tools/call <tool>" under the
// call's span, and the W3C trace context of that client span travels in
// the request's _meta (traceparent, tracestate) and, to HTTP servers, in
// its headers. A tools/call that arrives with a trace context (in _meta,
// or the HTTP headers) continues the caller's trace.
//
// The exporter is chosen by the standard OTEL_* environment variables (see
// [Options.Traces]); the OTLP exporters read their own endpoint, headers,
// timeout and TLS variables.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Options configures [New]. The zero Options means everything off.
type Options struct {
	// Traces switches tracing on (the config's telemetry.traces). Tracing
	// is also on when OTEL_EXPORTER_OTLP_ENDPOINT or
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, and off, whatever else
	// says, when OTEL_SDK_DISABLED is "true" or OTEL_TRACES_EXPORTER is
	// "none". The exporter is OTLP (OTEL_TRACES_EXPORTER "otlp", the only
	// other value taken), over HTTP/protobuf unless
	// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL or OTEL_EXPORTER_OTLP_PROTOCOL
	// says "grpc".
	Traces bool
	// Metrics switches the metrics on; [Telemetry.MetricsHandler] serves
	// them.
	Metrics bool
	// ServiceName is the resource's service.name; OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES override it. If empty, "codemode".
	ServiceName string
	// Version is the resource's service.version, if not empty.
	Version string
	// SpanExporter, if non-nil, receives the spans instead of the
	// exporter the environment chooses, and switches tracing on (tests).
	SpanExporter sdktrace.SpanExporter
	// Logger is told, at Info, what New switched on. The exporters' own
	// errors go to OpenTelemetry's error handler (the standard logger, on
	// stderr). If nil, nothing is logged.
	Logger *slog.Logger
}

// Telemetry holds the tracer and meter providers. Its methods are safe for
// concurrent use; Shutdown flushes and stops them.
type Telemetry struct {
	tp     *sdktrace.TracerProvider // nil: tracing off
	tracer trace.Tracer             // nil: tracing off
	prop   propagation.TraceContext
	mp     *sdkmetric.MeterProvider // nil: metrics off
	reg    *prometheus.Registry
	inst   *instruments // nil: metrics off
	log    *slog.Logger
}

// scope is the instrumentation scope of our spans and metrics.
const scope = "github.com/codemode/codemode/internal/telemetry"

// New starts the providers Options asks for. With neither on, it returns
// a Telemetry whose Enabled is false and whose hooks are never needed.
func New(ctx context.Context, opts Options) (*Telemetry, error) {
	t := &Telemetry{log: opts.Logger}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	tracing := TracesWanted(opts.Traces) || opts.SpanExporter != nil
	if !tracing && !opts.Metrics {
		return t, nil
	}
	name := opts.ServiceName
	if name == "" {
		name = "codemode"
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if opts.Version != "" {
		attrs = append(attrs, attribute.String("service.version", opts.Version))
	}
	// Later options override earlier ones: the environment wins.
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	if tracing {
		exp := opts.SpanExporter
		if exp == nil {
			if exp, err = spanExporter(ctx); err != nil {
				return nil, err
			}
		}
		t.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.tracer = t.tp.Tracer(scope)
		t.log.Info("telemetry: tracing on", slog.String("exporter", fmt.Sprintf("%T", exp)))
	}
	if opts.Metrics {
		t.reg = prometheus.NewRegistry()
		exp, err := otelprom.New(otelprom.WithRegisterer(t.reg), otelprom.WithoutScopeInfo())
		if err != nil {
			t.shutdownTraces(ctx)
			return nil, fmt.Errorf("telemetry: prometheus exporter: %w", err)
		}
		t.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp), sdkmetric.WithResource(res))
		if t.inst, err = newInstruments(t.mp.Meter(scope)); err != nil {
			t.shutdownTraces(ctx)
			return nil, err
		}
		t.log.Info("telemetry: metrics on")
	}
	return t, nil
}

// TracesWanted reports whether tracing is on, given the config's switch
// and the environment (see [Options.Traces]).
func TracesWanted(configured bool) bool {
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(os.Getenv("OTEL_TRACES_EXPORTER"), "none") {
		return false
	}
	return configured || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// spanExporter is the OTLP exporter the environment asks for.
func spanExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	if e := os.Getenv("OTEL_TRACES_EXPORTER"); e != "" && e != "otlp" {
		return nil, fmt.Errorf("telemetry: OTEL_TRACES_EXPORTER=%q: codemode exports traces over OTLP only (\"otlp\", or \"none\")", e)
	}
	proto := os.Getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
	if proto == "" {
		proto = os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	switch proto {
	case "", "http/protobuf":
		return otlptracehttp.New(ctx)
	case "grpc":
		return otlptracegrpc.New(ctx)
	}
	return nil, fmt.Errorf("telemetry: OTLP protocol %q is not supported (want \"http/protobuf\" or \"grpc\")", proto)
}

// Enabled reports whether tracing or metrics are on.
func (t *Telemetry) Enabled() bool { return t.tp != nil || t.mp != nil }

// Tracing reports whether tracing is on.
func (t *Telemetry) Tracing() bool { return t.tp != nil }

// Metrics reports whether metrics are on.
func (t *Telemetry) Metrics() bool { return t.mp != nil }

// Flush exports the spans buffered so far.
func (t *Telemetry) Flush(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	return t.tp.ForceFlush(ctx)
}

// Shutdown exports what is buffered and stops the providers. Call it once,
// after the last call has returned.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	err := t.shutdownTraces(ctx)
	if t.mp != nil {
		err = errors.Join(err, t.mp.Shutdown(ctx))
	}
	return err
}

func (t *Telemetry) shutdownTraces(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	return t.tp.Shutdown(ctx)
}
