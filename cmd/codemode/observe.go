package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/edge/front"
	"github.com/codemode/codemode/internal/edge/upstream"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/runview"
	"github.com/codemode/codemode/internal/telemetry"
	"github.com/codemode/codemode/tools"
)

// appOption adds to what newRecordingApp builds.
type appOption func(*observability)

// withRunViewer records runs for the run viewer (serve --listen, unless
// --no-ui).
func withRunViewer() appOption { return func(o *observability) { o.wantViewer = true } }

// observability is what an app carries for docs/observability.md:
// telemetry (nil hooks when off) and the run viewer (nil unless asked).
type observability struct {
	tel        *telemetry.Telemetry
	viewer     *runview.Viewer
	wantViewer bool
	removes    []func()
}

// newObservability starts telemetry as the config and the environment
// say, and the run viewer if an option asks for it.
func newObservability(ctx context.Context, cfg *config.Config, log *slog.Logger, opts []appOption) (*observability, error) {
	o := &observability{}
	for _, opt := range opts {
		opt(o)
	}
	t := cfg.CodeMode.Telemetry
	tel, err := telemetry.New(ctx, telemetry.Options{Traces: t.Traces, Metrics: t.Metrics, ServiceName: t.ServiceName, Version: front.Version, Logger: log})
	if err != nil {
		return nil, err
	}
	o.tel = tel
	if o.wantViewer {
		o.viewer = runview.New(runview.Options{Runs: t.Runs, MaxBytes: int(t.MaxPayloadBytes), Redact: cfg.CodeMode.RedactRules()})
	}
	return o, nil
}

// hookRegistry adds the middlewares: telemetry outermost, so its span
// covers what the viewer records.
func (o *observability) hookRegistry(reg *tools.Registry) {
	if o.tel.Enabled() {
		o.removes = append(o.removes, reg.Use(o.tel.Middleware()))
	}
	if o.viewer != nil {
		o.removes = append(o.removes, reg.Use(o.viewer.Middleware()))
	}
}

func (o *observability) hookUpstream(opts *upstream.Options) {
	if o.tel.Enabled() {
		opts.Trace = o.tel.UpstreamTrace
		opts.WrapHTTP = o.tel.WrapHTTP
	}
}

func (o *observability) hookPreset(opts *codemode.Options) {
	if o.tel.Enabled() {
		opts.Observers = append(opts.Observers, o.tel.Observer())
	}
	if o.viewer != nil {
		opts.Observers = append(opts.Observers, o.viewer.Observer())
	}
}

// observe registers the gauges over the app's state.
func (o *observability) observe(a *app) error {
	if !o.tel.Metrics() {
		return nil
	}
	envs, rt := a.plugin.Environments(), a.plugin.Runtime()
	unregister, err := o.tel.Observe(telemetry.Sources{
		Environments: func() (int, map[string]int64) { return envs.Len(), envs.Evictions() },
		Engine:       rt.Engine(),
		Warm:         rt.Warm,
		Upstreams:    a.upstream.Status,
		Memory:       func() (int64, int64) { return rt.Governor().InUse(), rt.Governor().Budget() },
	})
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	o.removes = append(o.removes, unregister)
	return nil
}

// callContext is the front's CallContext: nil with tracing off.
func (o *observability) callContext() func(context.Context, mcp.Meta, http.Header) context.Context {
	if o == nil || !o.tel.Tracing() {
		return nil
	}
	return o.tel.CallContext
}

// close unhooks and exports what telemetry still buffers (bounded: a
// collector that is gone must not hold the exit).
func (o *observability) close(log *slog.Logger) {
	if o == nil {
		return
	}
	for i := len(o.removes) - 1; i >= 0; i-- {
		o.removes[i]()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := o.tel.Shutdown(ctx); err != nil {
		log.Warn("telemetry: shutting down: " + err.Error())
	}
}
