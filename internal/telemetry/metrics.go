package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/codemode/codemode/internal/edge/upstream"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metric names (docs/observability.md). mcp.client.operation.duration is
// the OpenTelemetry MCP convention's; the others are ours, named by the
// conventions' rules (dotted, unit-free names, units in the unit field).
const (
	metricRuns            = "codemode.runs"
	metricRunDuration     = "codemode.run.duration"
	metricNestedCalls     = "codemode.nested_calls"
	metricNestedDuration  = "codemode.nested_call.duration"
	metricMCPClient       = "mcp.client.operation.duration"
	metricEnvironments    = "codemode.environments"
	metricEvictions       = "codemode.environment.evictions"
	metricPoolWarm        = "codemode.pool.warm"
	metricMemoryReserved  = "codemode.memory.reserved"
	metricMemoryBudget    = "codemode.memory.budget"
	metricUpstreamState   = "codemode.upstream.state"
	metricUpstreamRestart = "codemode.upstream.restarts"
)

// durationBuckets are seconds, from half a millisecond (a nested call on
// goja) to a program's 30 s default timeout.
var durationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}

const (
	keyEvictionCause = attribute.Key("codemode.eviction.cause")
	keyUpstreamState = attribute.Key("codemode.upstream.state")
)

type instruments struct {
	meter          metric.Meter
	runs           metric.Int64Counter
	runDuration    metric.Float64Histogram
	nested         metric.Int64Counter
	nestedDuration metric.Float64Histogram
	mcpClient      metric.Float64Histogram
}

func newInstruments(m metric.Meter) (*instruments, error) {
	in := &instruments{meter: m}
	var err error
	check := func(e error) {
		if err == nil && e != nil {
			err = fmt.Errorf("telemetry: instrument: %w", e)
		}
	}
	var e error
	in.runs, e = m.Int64Counter(metricRuns, metric.WithUnit("{run}"), metric.WithDescription("code_run programs run, by engine, mode and outcome (ok or the error code)"))
	check(e)
	in.runDuration, e = m.Float64Histogram(metricRunDuration, metric.WithUnit("s"), metric.WithDescription("how long a code_run program ran, parsing included"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	check(e)
	in.nested, e = m.Int64Counter(metricNestedCalls, metric.WithUnit("{call}"), metric.WithDescription("nested tool calls made by programs, by server, tool and outcome"))
	check(e)
	in.nestedDuration, e = m.Float64Histogram(metricNestedDuration, metric.WithUnit("s"), metric.WithDescription("how long a nested tool call took, through the whole pipeline"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	check(e)
	in.mcpClient, e = m.Float64Histogram(metricMCPClient, metric.WithUnit("s"), metric.WithDescription("upstream MCP tools/call requests, as the client saw them"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	check(e)
	return in, err
}

func (in *instruments) run(ctx context.Context, engine, mode, outcome string, d time.Duration) {
	attrs := metric.WithAttributes(keyEngine.String(engine), keyMode.String(mode), keyOutcome.String(outcome))
	in.runs.Add(ctx, 1, attrs)
	in.runDuration.Record(ctx, d.Seconds(), attrs)
}

func (in *instruments) nestedCall(ctx context.Context, server, tool, outcome string, d time.Duration) {
	attrs := metric.WithAttributes(keyServer.String(server), keyTool.String(tool), keyOutcome.String(outcome))
	in.nested.Add(ctx, 1, attrs)
	in.nestedDuration.Record(ctx, d.Seconds(), attrs)
}

func (in *instruments) upstreamCall(ctx context.Context, server, tool, errType string, d time.Duration) {
	kv := []attribute.KeyValue{keyMethod.String("tools/call"), keyServer.String(server), keyTool.String(tool)}
	if errType != "" {
		kv = append(kv, keyErrorType.String(errType))
	}
	in.mcpClient.Record(ctx, d.Seconds(), metric.WithAttributes(kv...))
}

// Sources are the state the observable metrics read at each scrape. A nil
// field leaves its metrics out.
type Sources struct {
	// Environments reports the live persistent environments and the
	// releases so far by cause (runtime.Environments Len and Evictions).
	Environments func() (live int, evictions map[string]int64)
	// Engine names the engine whose pool Warm reports.
	Engine string
	// Warm reports the warm per-call environments of the engine's pool
	// (runtime.Runtime.Warm).
	Warm func() (int, bool)
	// Upstreams reports the upstream servers (upstream.Manager.Status).
	Upstreams func() []upstream.ServerStatus
	// Memory reports the memory governor's reservations and its budget,
	// in bytes (runtime.Governor InUse and Budget).
	Memory func() (reserved, budget int64)
}

// upstreamStates are the states codemode.upstream.state reports, one
// series each (1 for the server's state, 0 for the others).
var upstreamStates = []upstream.State{upstream.StateStarting, upstream.StateReady, upstream.StateRestarting, upstream.StateClosed}

// Observe registers the observable metrics over src. It does nothing with
// metrics off. The returned function unregisters them.
func (t *Telemetry) Observe(src Sources) (unregister func(), err error) {
	if t.inst == nil {
		return func() {}, nil
	}
	m := t.inst.meter
	envs, err := m.Int64ObservableUpDownCounter(metricEnvironments, metric.WithUnit("{environment}"), metric.WithDescription("live persistent environments"))
	if err != nil {
		return nil, err
	}
	evictions, err := m.Int64ObservableCounter(metricEvictions, metric.WithUnit("{environment}"), metric.WithDescription("persistent environments released, by cause"))
	if err != nil {
		return nil, err
	}
	warm, err := m.Int64ObservableGauge(metricPoolWarm, metric.WithUnit("{environment}"), metric.WithDescription("warm per-call environments waiting in the engine's pool"))
	if err != nil {
		return nil, err
	}
	reserved, err := m.Int64ObservableGauge(metricMemoryReserved, metric.WithUnit("By"), metric.WithDescription("memory reserved by running programs and kept persistent environments (the memory governor)"))
	if err != nil {
		return nil, err
	}
	budget, err := m.Int64ObservableGauge(metricMemoryBudget, metric.WithUnit("By"), metric.WithDescription("the memory governor's budget (codemode.maxTotalMemoryBytes)"))
	if err != nil {
		return nil, err
	}
	state, err := m.Int64ObservableGauge(metricUpstreamState, metric.WithDescription("upstream MCP servers by state: 1 for the state a server is in, 0 for the others"))
	if err != nil {
		return nil, err
	}
	restarts, err := m.Int64ObservableCounter(metricUpstreamRestart, metric.WithUnit("{restart}"), metric.WithDescription("reconnections of an upstream MCP server after its first connection"))
	if err != nil {
		return nil, err
	}
	reg, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		if src.Environments != nil {
			live, ev := src.Environments()
			o.ObserveInt64(envs, int64(live))
			for cause, n := range ev {
				o.ObserveInt64(evictions, n, metric.WithAttributes(keyEvictionCause.String(cause)))
			}
		}
		if src.Warm != nil {
			if n, ok := src.Warm(); ok {
				o.ObserveInt64(warm, int64(n), metric.WithAttributes(keyEngine.String(src.Engine)))
			}
		}
		if src.Memory != nil {
			r, b := src.Memory()
			o.ObserveInt64(reserved, r)
			o.ObserveInt64(budget, b)
		}
		if src.Upstreams != nil {
			for _, s := range src.Upstreams() {
				for _, st := range upstreamStates {
					v := int64(0)
					if s.State == st {
						v = 1
					}
					o.ObserveInt64(state, v, metric.WithAttributes(keyServer.String(s.Name), keyUpstreamState.String(string(st))))
				}
				o.ObserveInt64(restarts, int64(max(s.Connects-1, 0)), metric.WithAttributes(keyServer.String(s.Name)))
			}
		}
		return nil
	}, envs, evictions, warm, reserved, budget, state, restarts)
	if err != nil {
		return nil, err
	}
	return func() { _ = reg.Unregister() }, nil
}

// MetricsHandler serves the metrics in the Prometheus text format; with
// metrics off, it answers 404.
func (t *Telemetry) MetricsHandler() http.Handler {
	if t.reg == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(t.reg, promhttp.HandlerOpts{})
}
