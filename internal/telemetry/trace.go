package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/upstream"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys. The gen_ai.*, mcp.* and error.type keys are the
// OpenTelemetry semantic conventions' (GenAI "execute_tool" spans, MCP);
// codemode.* are ours.
const (
	keyOperation     = attribute.Key("gen_ai.operation.name")
	keyTool          = attribute.Key("gen_ai.tool.name")
	keyCallID        = attribute.Key("gen_ai.tool.call.id")
	keyMethod        = attribute.Key("mcp.method.name")
	keyErrorType     = attribute.Key("error.type")
	keyRootID        = attribute.Key("codemode.call.root_id")
	keyParentID      = attribute.Key("codemode.call.parent_id")
	keyNested        = attribute.Key("codemode.call.nested")
	keyServer        = attribute.Key("codemode.server")
	keyOutcome       = attribute.Key("codemode.outcome")
	keyDecision      = attribute.Key("codemode.policy.decision")
	keyArgBytes      = attribute.Key("codemode.arguments.bytes")
	keyResultBytes   = attribute.Key("codemode.result.bytes")
	keyEngine        = attribute.Key("codemode.engine")
	keyMode          = attribute.Key("codemode.mode")
	keyCodeBytes     = attribute.Key("codemode.code.bytes")
	keyCodeDigest    = attribute.Key("codemode.code.sha256")
	keyEnvironment   = attribute.Key("codemode.environment")
	keyRunOutcome    = attribute.Key("codemode.run.outcome")
	keyRunLogBytes   = attribute.Key("codemode.run.log.bytes")
	keyRunLogLines   = attribute.Key("codemode.run.log.lines")
	keyRunLogCut     = attribute.Key("codemode.run.log.truncated")
	keyRunValueBytes = attribute.Key("codemode.run.value.bytes")
	keyRunCalls      = attribute.Key("codemode.run.calls")
	keyRunErrorLine  = attribute.Key("codemode.run.error.line")
	keyRunEventsLost = attribute.Key("codemode.run.log.events_dropped")
	keyLogLevel      = attribute.Key("codemode.log.level")
	keyLogText       = attribute.Key("codemode.log.text")
)

// Bounds of what a span carries from a program's console.
const (
	maxLogEvents    = 64   // console events per code_run span
	maxLogEventText = 1024 // bytes of one event's text
	maxMessage      = 1024 // bytes of an error status message
)

// outcomeOK is the outcome of a call or run that succeeded; others are
// error codes.
const outcomeOK = "ok"

// Middleware returns the tools.Middleware that makes a span for every
// call and counts nested calls. It sees every call, refused ones included
// (docs/contract.md#pipeline).
func (t *Telemetry) Middleware() tools.Middleware {
	return func(next tools.Executor) tools.Executor {
		return func(ctx context.Context, e *tools.Execution) *tools.Result {
			var span trace.Span
			if t.tracer != nil {
				kind := trace.SpanKindInternal
				if e.Parent().IsZero() {
					kind = trace.SpanKindServer // a client's tools/call
				}
				ctx, span = t.tracer.Start(ctx, "execute_tool "+human.Cut(e.Name(), 128), trace.WithSpanKind(kind),
					trace.WithAttributes(keyOperation.String("execute_tool"), keyCallID.String(e.CallID())))
			}
			res := next(ctx, e)
			tool, server := toolLabels(e)
			outcome := outcomeOf(res)
			if span != nil {
				if !e.Resolved() {
					span.SetName("execute_tool (unknown)")
				}
				attrs := []attribute.KeyValue{
					keyTool.String(tool), keyOutcome.String(outcome),
					keyArgBytes.Int(len(e.ArgumentsText())), keyResultBytes.Int(resultBytes(res)),
					keyRootID.String(e.RootCallID()),
				}
				if p := e.ParentCallID(); p != "" {
					attrs = append(attrs, keyParentID.String(p), keyNested.Bool(true))
				}
				if server != "" {
					attrs = append(attrs, keyServer.String(server))
				}
				if d := decision(res); d != "" {
					attrs = append(attrs, keyDecision.String(d))
				}
				span.SetAttributes(attrs...)
				if res.IsError {
					span.SetAttributes(keyErrorType.String(outcome))
					span.SetStatus(codes.Error, human.Cut(res.Err.Message, maxMessage))
				}
				span.End()
			}
			if t.inst != nil && !e.Parent().IsZero() {
				t.inst.nestedCall(ctx, server, tool, outcome, time.Since(e.Start()))
			}
			return res
		}
	}
}

// toolLabels are the tool and server a call is counted under: the
// registered name, and for an upstream tool (mcp__<server>__<tool>) its
// server. A name nothing resolved is "(unknown)": it came from a model, and
// a label per made-up name would grow without bound.
func toolLabels(e *tools.Execution) (tool, server string) {
	if !e.Resolved() {
		return "(unknown)", ""
	}
	tool = e.Name()
	if rest, ok := strings.CutPrefix(tool, "mcp__"); ok {
		if i := strings.Index(rest, "__"); i > 0 {
			server = rest[:i]
		}
	}
	return tool, server
}

func outcomeOf(res *tools.Result) string {
	if res.IsError && res.Err != nil {
		return string(res.Err.Code)
	}
	return outcomeOK
}

// decision is the policy's decision as the result shows it: the pipeline
// exposes no decision value, only the code it ended with. "" when the call
// was refused before the policy ran (unknown name, bad arguments); "deny"
// for DENIED (a pre-execute denial, a refused approval, a guard, a
// post-execute block or a stale parent token: the code does not say
// which); "cancel" for the policy's cancellation; "allow" otherwise.
func decision(res *tools.Result) string {
	if !res.IsError || res.Err == nil {
		return "allow"
	}
	switch res.Err.Code {
	case errs.CodeUnknownTool, errs.CodeInvalidArguments, errs.CodeArgumentsTooLarge:
		return ""
	case errs.CodeDenied:
		return "deny"
	case errs.CodeCancelled:
		if res.Err.Message == "cancelled by policy" {
			return "cancel"
		}
	}
	return "allow"
}

// resultBytes is the size of what a call returned: its structured value,
// else its text.
func resultBytes(res *tools.Result) int {
	if len(res.Value) > 0 {
		return len(res.Value)
	}
	n := 0
	for _, c := range res.Content {
		if tx, ok := c.(tools.Text); ok {
			n += len(tx.Text)
		}
	}
	return n
}

// Observer returns the codemode.RunObserver that puts a run's attributes
// and console lines on its code_run span and counts runs.
func (t *Telemetry) Observer() codemode.RunObserver {
	return func(ctx context.Context, run codemode.RunStart) *codemode.RunWatch {
		span := trace.SpanFromContext(ctx)
		recording := t.tracer != nil && span.IsRecording()
		if !recording && t.inst == nil {
			return nil
		}
		w := &codemode.RunWatch{}
		var events atomic.Int64
		if recording {
			sum := sha256.Sum256([]byte(run.Code))
			span.SetAttributes(keyEngine.String(run.Engine), keyMode.String(string(run.Mode)),
				keyCodeBytes.Int(len(run.Code)), keyCodeDigest.String(hex.EncodeToString(sum[:])))
			w.Log = func(l runtime.Log) {
				if events.Add(1) <= maxLogEvents {
					span.AddEvent("console", trace.WithAttributes(keyLogLevel.String(l.Level), keyLogText.String(human.Cut(l.Text, maxLogEventText))))
				}
			}
		}
		w.Done = func(end codemode.RunEnd) {
			out := end.Outcome
			outcome := outcomeOK
			if out.Err != nil {
				outcome = string(out.Err.Code)
			}
			if recording {
				logBytes := 0
				for _, l := range out.Logs {
					logBytes += len(l.Text)
				}
				env := "reused"
				if end.Fresh {
					env = "fresh"
				}
				attrs := []attribute.KeyValue{keyRunOutcome.String(outcome), keyEnvironment.String(env),
					keyRunLogBytes.Int(logBytes), keyRunLogLines.Int(len(out.Logs)), keyRunLogCut.Bool(out.LogsTruncated),
					keyRunValueBytes.Int(len(out.Value)), keyRunCalls.Int(len(out.Calls))}
				if n := events.Load() - maxLogEvents; n > 0 {
					attrs = append(attrs, keyRunEventsLost.Int64(n))
				}
				if out.Err != nil {
					if line, ok := out.Err.InfoInt("line"); ok {
						attrs = append(attrs, keyRunErrorLine.Int(line))
					}
				}
				span.SetAttributes(attrs...)
			}
			if t.inst != nil {
				t.inst.run(ctx, run.Engine, string(run.Mode), outcome, out.Duration)
			}
		}
		return w
	}
}

// UpstreamTrace is upstream.Options.Trace: a client span around the
// tools/call, whose trace context goes into the request's _meta, and the
// MCP client duration metric.
func (t *Telemetry) UpstreamTrace(ctx context.Context, c upstream.TraceCall) (context.Context, func(error)) {
	start := time.Now()
	var span trace.Span
	if t.tracer != nil {
		ctx, span = t.tracer.Start(ctx, "tools/call "+c.Tool, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(keyMethod.String("tools/call"), keyTool.String(c.Tool), keyServer.String(c.Server)))
		t.prop.Inject(ctx, metaCarrier(c.Meta))
	}
	return ctx, func(err error) {
		errType := ""
		if err != nil {
			errType = string(errs.CodeOf(err))
		}
		if span != nil {
			if err != nil {
				span.SetAttributes(keyErrorType.String(errType))
				span.SetStatus(codes.Error, human.Cut(err.Error(), maxMessage))
			}
			span.End()
		}
		if t.inst != nil {
			t.inst.upstreamCall(ctx, c.Server, c.Tool, errType, time.Since(start))
		}
	}
}

// WrapHTTP is upstream.Options.WrapHTTP: requests made under a span carry
// its W3C trace context in their headers.
func (t *Telemetry) WrapHTTP(base http.RoundTripper) http.RoundTripper {
	if t.tracer == nil {
		return base
	}
	return &traceTransport{base: base, prop: t.prop}
}

type traceTransport struct {
	base http.RoundTripper
	prop propagation.TraceContext
}

func (tt *traceTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if trace.SpanContextFromContext(r.Context()).IsValid() {
		r = r.Clone(r.Context()) // a RoundTripper must not change its request
		tt.prop.Inject(r.Context(), propagation.HeaderCarrier(r.Header))
	}
	return tt.base.RoundTrip(r)
}

// CallContext is front.Options.CallContext: a tools/call that carries a
// W3C trace context, in its _meta or else in its HTTP headers, continues
// that trace.
func (t *Telemetry) CallContext(ctx context.Context, meta mcp.Meta, header http.Header) context.Context {
	if t.tracer == nil {
		return ctx
	}
	if _, ok := meta["traceparent"].(string); ok {
		return t.prop.Extract(ctx, metaCarrier(meta))
	}
	if header.Get("traceparent") != "" {
		return t.prop.Extract(ctx, propagation.HeaderCarrier(header))
	}
	return ctx
}

// metaCarrier reads and writes the W3C keys of an MCP _meta.
type metaCarrier mcp.Meta

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
