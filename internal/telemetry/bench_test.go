package telemetry_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/runview"
	"github.com/codemode/codemode/internal/telemetry"
	"github.com/codemode/codemode/ptc"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// The overhead of telemetry on a nested call, off and on
// (docs/observability.md#overhead):
//
//	go test -run '^$' -bench . -benchmem ./internal/telemetry
//
// "off" registers nothing, as codemode does with telemetry off: it is
// codemode's BenchmarkPTCCall. Spans go to an exporter that drops them, so
// what is measured is what a call pays, not the export (which runs on the
// batch processor's goroutine).
var setups = []struct {
	name string
	opts telemetry.Options
	view bool
}{
	{name: "off"},
	{name: "traces", opts: telemetry.Options{SpanExporter: tracetest.NewNoopExporter()}},
	{name: "metrics", opts: telemetry.Options{Metrics: true}},
	{name: "traces+metrics", opts: telemetry.Options{SpanExporter: tracetest.NewNoopExporter(), Metrics: true}},
	{name: "runview", view: true},
}

// benchHost mounts code mode (goja, persistent) beside a no-op tool, with
// the setup's hooks, and returns the registry and an agent.
func benchHost(b *testing.B, opts telemetry.Options, view bool) (*tools.Registry, *tools.Agent) {
	tel, err := telemetry.New(context.Background(), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tel.Shutdown(context.Background()) })
	reg := tools.New(tools.Options{})
	var observers []codemode.RunObserver
	if tel.Enabled() {
		b.Cleanup(reg.Use(tel.Middleware()))
		observers = append(observers, tel.Observer())
	}
	if view {
		v := runview.New(runview.Options{})
		b.Cleanup(reg.Use(v.Middleware()))
		observers = append(observers, v.Observer())
	}
	if _, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__fake__noop", Handler: func(context.Context, *tools.Execution) (*tools.Result, error) {
		return &tools.Result{Value: json.RawMessage(`1`)}, nil
	}}); err != nil {
		b.Fatal(err)
	}
	host := scope.NewHost("host")
	b.Cleanup(func() { host.Dispose() })
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{Engine: runtime.EngineGoja, Mode: runtime.ModePersistent, Observers: observers}); err != nil {
		b.Fatal(err)
	}
	agent, err := reg.NewAgent(preset, "bench")
	if err != nil {
		b.Fatal(err)
	}
	return reg, agent
}

// BenchmarkNestedCall is the registry side of one nested call (ptc,
// Execute, the middlewares, a no-op tool), inside a running code_run.
func BenchmarkNestedCall(b *testing.B) {
	for _, s := range setups {
		b.Run(s.name, func(b *testing.B) {
			reg, agent := benchHost(b, s.opts, s.view)
			reg.Register(tools.PresetLayer("codemode"), tools.Tool{Name: "parent", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
				c := ptc.New(reg, e, ptc.Options{})
				args := json.RawMessage(`{}`)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if _, _, err := c.Call(ctx, "mcp__fake__noop", args); err != nil {
						b.Fatal(err)
					}
				}
				return nil, nil
			}})
			reg.Execute(context.Background(), tools.Input{CallID: "p", Name: "parent", Agent: agent})
		})
	}
}

// BenchmarkCodeRun is a whole code_run with ten nested calls, on goja in
// persistent mode (the engine's share is smallest there).
func BenchmarkCodeRun(b *testing.B) {
	const code = "let s = 0; for (let i = 0; i < 10; i++) s += await tools.mcp__fake__noop({}); return s"
	for _, s := range setups {
		b.Run(s.name, func(b *testing.B) {
			reg, agent := benchHost(b, s.opts, s.view)
			args := map[string]any{"code": code}
			b.ReportAllocs()
			for b.Loop() {
				if res := reg.Execute(context.Background(), tools.Input{CallID: "b", Name: codemode.ToolCodeRun, Arguments: args, Agent: agent}); res.IsError {
					b.Fatal(res.TextOf())
				}
			}
		})
	}
}
