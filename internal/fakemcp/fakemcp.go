// Package fakemcp is a fake MCP server for tests and demos: three
// deterministic tools, no network, no state beyond a call counter.
//
// # Tools
//
//   - ticker {symbol} → {symbol, price, currency}: a price derived from the
//     symbol by hashing, so every run agrees; currency is always "USD". Its
//     input schema has additionalProperties: false, so extra arguments are
//     refused by schema validation (a tool error, not a protocol error).
//   - echo {text} → {text, meta?}: meta is the request's _meta, less the
//     protocol's own keys (see [Provenance]), when anything is left, so a
//     test can check the provenance (call id, root call id, parent call id) a
//     client forwards. The fake does not interpret those keys.
//   - slow {ms} → {slept}: waits ms milliseconds unless the call is
//     cancelled first; a cancellation is logged as "slow: cancelled after N
//     ms" and reported as an [Event], so a test can see that a cancellation
//     reached the upstream.
//
// Every tool result carries structured content, checked against the tool's
// output schema, and the same JSON as text content.
//
// # Use
//
// In-process, connect [NewServer] to an [mcp.NewInMemoryTransports] pair. As
// a process (`codemode fakemcp`, or `go run ./fixtures/fakemcp`), [Main]
// serves one session on stdin/stdout through the netpoller (see
// internal/stdiox) and reads two environment variables:
//
//   - FAKEMCP_EVENTS=<file>: append every [Event] to file as a JSON line.
//   - FAKEMCP_CRASH_AFTER=<n>: exit(3) abruptly when the n-th tool call
//     arrives, before answering it, to simulate an upstream crash.
package fakemcp

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kinds of [Event].
const (
	// EventCall is reported when a tool call arrives, after its arguments
	// passed schema validation and before the tool does anything.
	EventCall = "call"
	// EventCancelled is reported when slow is cancelled before it finishes.
	EventCancelled = "cancelled"
)

// An Event is something about a tool call that a test may want to observe
// from outside the server.
type Event struct {
	// Kind is EventCall or EventCancelled.
	Kind string `json:"kind"`
	// Seq numbers the tool calls the server has received, from 1, in the
	// order their handlers started. Events of one call share it.
	Seq int64 `json:"seq"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Meta is the request's _meta without the protocol's own keys (see
	// [Provenance]); nil when nothing is left.
	Meta map[string]any `json:"meta,omitempty"`
	// ElapsedMS is, for EventCancelled, how long slow had waited.
	ElapsedMS int64 `json:"elapsedMs,omitempty"`
}

// Options configures [NewServerWith]. The zero value is valid.
type Options struct {
	// Log receives human-readable lines such as "slow: cancelled after 12
	// ms". If nil, they are discarded.
	Log io.Writer
	// OnEvent, if non-nil, is called for every [Event], synchronously on the
	// goroutine handling the call (so before the reply is sent), and possibly
	// from several goroutines at once.
	OnEvent func(Event)
}

// NewServer returns the fake server with default [Options].
func NewServer() *mcp.Server { return NewServerWith(Options{}) }

// NewServerWith returns the fake server with its three tools. Each call
// makes an independent server; they share nothing.
func NewServerWith(opts Options) *mcp.Server {
	f := &fake{opts: opts}
	if f.opts.Log == nil {
		f.opts.Log = io.Discard
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "fakemcp", Version: "1.0.0"}, &mcp.ServerOptions{
		// No logging capability: the fake has nothing to say over the
		// protocol, and a smaller initialize result keeps transcripts short.
		Capabilities: &mcp.ServerCapabilities{},
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         "ticker",
		Description:  "Look up the current price of a stock ticker symbol (fake, deterministic).",
		InputSchema:  tickerIn,
		OutputSchema: tickerOut,
	}, f.ticker)
	mcp.AddTool(s, &mcp.Tool{
		Name:         "echo",
		Description:  "Return the given text; also returns the request's _meta under meta when present.",
		InputSchema:  echoIn,
		OutputSchema: echoOut,
	}, f.echo)
	mcp.AddTool(s, &mcp.Tool{
		Name:         "slow",
		Description:  "Wait for ms milliseconds, then return {slept: ms}. Stops early when the call is cancelled.",
		InputSchema:  slowIn,
		OutputSchema: slowOut,
	}, f.slow)
	return s
}

// Schemas are written out rather than inferred from the Go types so that
// what clients see (and what transcripts record) is stated here, once.
var (
	tickerIn = json.RawMessage(`{
		"type": "object",
		"properties": {"symbol": {"type": "string", "minLength": 1, "description": "Ticker symbol, e.g. ACME."}},
		"required": ["symbol"],
		"additionalProperties": false
	}`)
	tickerOut = json.RawMessage(`{
		"type": "object",
		"properties": {
			"symbol": {"type": "string"},
			"price": {"type": "number", "description": "Price with two decimals."},
			"currency": {"type": "string", "description": "ISO 4217 code; always USD."}
		},
		"required": ["symbol", "price", "currency"],
		"additionalProperties": false
	}`)
	echoIn = json.RawMessage(`{
		"type": "object",
		"properties": {"text": {"type": "string"}},
		"required": ["text"]
	}`)
	echoOut = json.RawMessage(`{
		"type": "object",
		"properties": {
			"text": {"type": "string"},
			"meta": {"type": "object", "description": "The request's _meta, when it had one."}
		},
		"required": ["text"],
		"additionalProperties": false
	}`)
	slowIn = json.RawMessage(`{
		"type": "object",
		"properties": {"ms": {"type": "number", "minimum": 0, "maximum": 600000, "description": "Milliseconds to wait, at most ten minutes."}},
		"required": ["ms"]
	}`)
	slowOut = json.RawMessage(`{
		"type": "object",
		"properties": {"slept": {"type": "number"}},
		"required": ["slept"],
		"additionalProperties": false
	}`)
)

type (
	tickerArgs struct {
		Symbol string `json:"symbol"`
	}
	// Quote is ticker's structured result.
	Quote struct {
		Symbol   string  `json:"symbol"`
		Price    float64 `json:"price"`
		Currency string  `json:"currency"`
	}
	echoArgs struct {
		Text string `json:"text"`
	}
	echoResult struct {
		Text string         `json:"text"`
		Meta map[string]any `json:"meta,omitempty"`
	}
	slowArgs struct {
		MS float64 `json:"ms"`
	}
	slowResult struct {
		Slept float64 `json:"slept"`
	}
)

type fake struct {
	opts  Options
	calls atomic.Int64
}

// Provenance returns the caller's own entries of a request's _meta: it
// drops progressToken and the keys whose prefix names the protocol
// ("io.modelcontextprotocol/…", "dev.mcp/…"), which MCP reserves and the SDK
// fills in on every request, so that what is left is what the caller chose
// to forward. It returns nil when nothing is left.
func Provenance(meta map[string]any) map[string]any {
	var out map[string]any
	for k, v := range meta {
		if k == "progressToken" || reservedMetaKey(k) {
			continue
		}
		if out == nil {
			out = make(map[string]any)
		}
		out[k] = v
	}
	return out
}

// reservedMetaKey reports whether k has a prefix whose second label is
// "modelcontextprotocol" or "mcp", the namespace the MCP spec reserves.
func reservedMetaKey(k string) bool {
	prefix, _, ok := strings.Cut(k, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	return len(labels) >= 2 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp")
}

// begin numbers a call and reports its arrival.
func (f *fake) begin(req *mcp.CallToolRequest) Event {
	ev := Event{Kind: EventCall, Seq: f.calls.Add(1), Tool: req.Params.Name, Meta: Provenance(req.Params.Meta)}
	f.emit(ev)
	return ev
}

func (f *fake) emit(ev Event) {
	if f.opts.OnEvent != nil {
		f.opts.OnEvent(ev)
	}
}

func (f *fake) ticker(_ context.Context, req *mcp.CallToolRequest, in tickerArgs) (*mcp.CallToolResult, Quote, error) {
	f.begin(req)
	return nil, PriceOf(in.Symbol), nil
}

// PriceOf returns the quote ticker gives for symbol: a price between 1.00
// and 999.99 taken from an FNV-1a hash of the symbol, so it is the same on
// every run and every machine.
func PriceOf(symbol string) Quote {
	h := fnv.New64a()
	h.Write([]byte(symbol))
	cents := 100 + h.Sum64()%99900
	return Quote{Symbol: symbol, Price: float64(cents) / 100, Currency: "USD"}
}

func (f *fake) echo(_ context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, echoResult, error) {
	ev := f.begin(req)
	return nil, echoResult{Text: in.Text, Meta: ev.Meta}, nil
}

func (f *fake) slow(ctx context.Context, req *mcp.CallToolRequest, in slowArgs) (*mcp.CallToolResult, slowResult, error) {
	ev := f.begin(req)
	start := time.Now()
	t := time.NewTimer(time.Duration(in.MS * float64(time.Millisecond)))
	defer t.Stop()
	select {
	case <-t.C:
		return nil, slowResult{Slept: in.MS}, nil
	case <-ctx.Done():
		elapsed := time.Since(start).Milliseconds()
		fmt.Fprintf(f.opts.Log, "slow: cancelled after %d ms\n", elapsed)
		ev.Kind, ev.ElapsedMS = EventCancelled, elapsed
		f.emit(ev)
		// Nobody reads this reply (the client has given up), but a tool
		// error is what the SDK expects from a failed handler.
		return nil, slowResult{}, fmt.Errorf("slow: %w", ctx.Err())
	}
}
