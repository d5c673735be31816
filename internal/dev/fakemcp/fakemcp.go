// Package fakemcp serves MCP fixtures: recordings of real servers
// (package fixture) replayed as a real MCP server, and the built-in fake
// server, whose three deterministic tools are one more fixture with Go
// handlers for its answers.
//
// # The built-in fake
//
// [NewServer] serves the embedded fixture [Builtin] (builtin.txtar: the
// initialize result and the three tools below), whose calls are answered
// by Go code: no network, no state beyond a call counter.
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
// # Recordings
//
// [NewFixtureServer] serves a recording: its initialize result (server
// info, instructions and tools capability; the protocol version is
// negotiated as usual, and resources and prompts are not replayed), its
// tool list as recorded (schemas and annotations), and each tools/call
// answered by the recorded call a [fixture.Matcher] picks, with the
// recorded result, or the recorded JSON-RPC error. A call no recorded call
// answers is a tool error (isError) that names the nearest recorded
// arguments and how they differ; a tool that is not in the recording is
// the protocol error a real server gives ("unknown tool"). Arguments are
// not validated against the schemas: the recording says what the server
// answered, invalid arguments included. [Options.Latency] replays the
// recorded timing, or a fixed one.
//
// # Use
//
// In-process, connect [NewServer] or [NewFixtureServer] to an
// [mcp.NewInMemoryTransports] pair. As a process (`codemode fakemcp
// [--fixture FILE]`, or `go run ./fixtures/fakemcp`), [Main] and [MainWith]
// serve one session on stdin/stdout through the netpoller (see
// internal/edge/stdiox), or streamable HTTP with MainOptions.Listen, and read
// two environment variables:
//
//   - FAKEMCP_EVENTS=<file>: append every [Event] to file as a JSON line.
//   - FAKEMCP_CRASH_AFTER=<n>: exit(3) abruptly when the n-th tool call
//     arrives, before answering it, to simulate an upstream crash.
package fakemcp

import (
	"context"
	_ "embed"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
	"github.com/codemode/codemode/internal/gosdk/mcp"
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

// Options configures [NewServerWith] and [NewFixtureServer]. The zero
// value is valid.
type Options struct {
	// Log receives human-readable lines such as "slow: cancelled after 12
	// ms". If nil, they are discarded.
	Log io.Writer
	// OnEvent, if non-nil, is called for every [Event], synchronously on the
	// goroutine handling the call (so before the reply is sent), and possibly
	// from several goroutines at once.
	OnEvent func(Event)
	// Match is how a recording answers a call no recorded call has the
	// arguments of (see [fixture.Rule]). If empty, fixture.MatchExact.
	Match fixture.Rule
	// Latency is how long a recorded answer is held before it is sent. The
	// zero value sends it at once.
	Latency Latency
}

// Latency is the delay of a replayed answer: the recorded duration of the
// call (Recorded), or Fixed.
type Latency struct {
	Recorded bool
	Fixed    time.Duration
}

// ParseLatency parses a --latency value: "recorded", "none" (or ""), or a
// duration: "25ms", "1.5s", or a bare number of milliseconds.
func ParseLatency(s string) (Latency, error) {
	switch s {
	case "", "none":
		return Latency{}, nil
	case "recorded":
		return Latency{Recorded: true}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		ms, err2 := strconv.ParseFloat(s, 64)
		if err2 != nil {
			return Latency{}, fmt.Errorf("%q is not a latency (want recorded, none, or a duration such as 25ms)", s)
		}
		d = time.Duration(ms * float64(time.Millisecond))
	}
	if d < 0 {
		return Latency{}, fmt.Errorf("%q: a latency must not be negative", s)
	}
	return Latency{Fixed: d}, nil
}

func (l Latency) of(c *fixture.Call) time.Duration {
	if l.Recorded {
		return c.Duration
	}
	return l.Fixed
}

//go:embed builtin.txtar
var builtinFile []byte

// Builtin returns the built-in fake's fixture: its initialize result and
// its three tools (names, descriptions, schemas), and no calls. Each call
// returns a fresh copy.
func Builtin() *fixture.Fixture {
	f, err := fixture.Parse(builtinFile)
	if err != nil {
		panic("fakemcp: builtin.txtar: " + err.Error()) // TestBuiltin keeps it valid
	}
	return f
}

// NewServer returns the fake server with default [Options].
func NewServer() *mcp.Server { return NewServerWith(Options{}) }

// NewServerWith returns the built-in fake server: [Builtin] with its three
// tools answered by Go handlers. Each call makes an independent server;
// they share nothing.
func NewServerWith(opts Options) *mcp.Server {
	f := newFake(opts)
	s, err := f.server(Builtin(), map[string]func(*mcp.Server, *mcp.Tool){
		"ticker": func(s *mcp.Server, t *mcp.Tool) { mcp.AddTool(s, t, f.ticker) },
		"echo":   func(s *mcp.Server, t *mcp.Tool) { mcp.AddTool(s, t, f.echo) },
		"slow":   func(s *mcp.Server, t *mcp.Tool) { mcp.AddTool(s, t, f.slow) },
	})
	if err != nil {
		panic("fakemcp: builtin: " + err.Error()) // TestBuiltin keeps it valid
	}
	return s
}

// NewFixtureServer returns a server that replays fx (see the package
// documentation). Each call makes an independent server, with its own
// [fixture.Matcher]; the sessions of one server share it.
func NewFixtureServer(fx *fixture.Fixture, opts Options) (*mcp.Server, error) {
	return newFake(opts).server(fx, nil)
}

func newFake(opts Options) *fake {
	f := &fake{opts: opts}
	if f.opts.Log == nil {
		f.opts.Log = io.Discard
	}
	return f
}

// server serves fx: a tool named in live is registered by that function
// (a Go handler), every other one answers from the recording.
func (f *fake) server(fx *fixture.Fixture, live map[string]func(*mcp.Server, *mcp.Tool)) (*mcp.Server, error) {
	init, err := fx.InitializeResult()
	if err != nil {
		return nil, err
	}
	list, err := fx.ToolList()
	if err != nil {
		return nil, err
	}
	if f.matcher, err = fixture.NewMatcher(fx, f.opts.Match); err != nil {
		return nil, err
	}
	// Only the tools capability is replayed (the fixture has nothing
	// else to serve); without one recorded, the SDK infers it. An empty
	// one also leaves out logging, which the SDK would otherwise claim.
	caps := &mcp.ServerCapabilities{}
	if init.Capabilities != nil {
		caps.Tools = init.Capabilities.Tools
	}
	s := mcp.NewServer(init.ServerInfo, &mcp.ServerOptions{Instructions: init.Instructions, Capabilities: caps})
	for _, t := range list {
		if add, ok := live[t.Name]; ok {
			add(s, t)
			continue
		}
		if err := addRecorded(s, t, f.replay(t.Name)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// addRecorded adds a recorded tool, turning the SDK's panic on a tool it
// refuses (an input schema that is not an object schema) into an error.
func addRecorded(s *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %q: %v", t.Name, r)
		}
	}()
	s.AddTool(t, h)
	return nil
}

// replay answers calls of a recorded tool.
func (f *fake) replay(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.begin(req)
		c, _, err := f.matcher.Match(name, req.Params.Arguments)
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		if d := f.opts.Latency.of(c); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		if c.Error != nil {
			return nil, &jsonrpc.Error{Code: c.Error.Code, Message: c.Error.Message, Data: c.Error.Data}
		}
		return c.CallToolResult()
	}
}

// Schemas are stated once, in builtin.txtar, and reach clients (and
// transcripts) as written there.

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
	opts    Options
	calls   atomic.Int64
	matcher *fixture.Matcher
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
