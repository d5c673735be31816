// Package upstream mounts the user's MCP servers into a [tools.Registry]:
// every tool of server S named T becomes the registry tool mcp__S__T
// (T verbatim, "-" and "." included), whose body forwards the call to S with
// the original name T.
//
// # Use
//
//	m, err := upstream.Start(ctx, reg, cfg.Servers, upstream.Options{
//		Logger: log,
//	})
//	if err != nil { … }
//	defer m.Close()
//
// Start connects to every server in parallel and returns once each has
// either registered its tools or failed its first attempt; a server that
// cannot start is logged, reported by [Manager.Status] and retried in the
// background, and Start still succeeds for the others.
//
// # Layers
//
// Every tool joins the registry's global layer. Which of them a model sees
// is the code-mode preset's decision (its "native" list), not the
// upstream's.
//
// # Failures
//
// A server whose process exits, whose connection drops, or which stops
// answering pings after a call timed out is restarted in the background
// with exponential backoff (Options.MinBackoff doubling to
// Options.MaxBackoff, reset once a connection has stayed up for
// Options.HealthyAfter). Its tools stay registered meanwhile.
//
// Calls in flight when a connection breaks fail with UPSTREAM_UNAVAILABLE:
// they were sent, and a tool need not be idempotent, so they are never
// repeated. A call made while the server is starting or restarting (or
// one that reached a connection that had already ended, so was not sent)
// waits for the server to be ready, then proceeds. It waits at most
// Options.ReconnectWait, after which it fails with UPSTREAM_UNAVAILABLE
// naming the server's last error, and fails so at once when the server's
// next attempt is scheduled after the wait would end or when the manager
// is closing. A call whose own deadline passes while it waits fails with
// TIMEOUT, like any call that outlives its deadline. A cancelled call is
// cancelled upstream too (MCP notifications/cancelled, sent by the SDK).
//
// # Frame limit
//
// Each server has a frame limit, the "maxFrameBytes" of its config entry
// ([config.Server.FrameLimit]; 16 MiB, the SDK's own, by default): the
// size of one JSON-RPC message to or from it (a stdio line, an HTTP body,
// a server-sent event). The SDK enforces a limit too, but a message over
// it ends the connection, and every call of every agent to that server
// with it. Here a limit only ever fails one call:
//
//   - a reply over the limit is dropped, never held whole, and replaced
//     before the SDK sees it by an error reply for the same request: the
//     call fails with RESULT_TOO_LARGE, telling the model to ask for less;
//     the connection is kept. A message over the limit that answers no
//     call (a notification, a request from the server) is dropped, with a
//     warning. On stdio the filter reads the child's stdout itself; on
//     HTTP it wraps the client's RoundTripper.
//   - a call whose arguments would make a request over the limit fails
//     with ARGUMENTS_TOO_LARGE before anything is sent: a server drops the
//     connection on a message over its own limit, which is assumed to be
//     the same.
//
// So a server can make codemode hold at most one limit's worth of a
// message (and the SDK its own copy of it), whatever it sends.
//
// # Fixtures
//
// A server given as {"fixture": path} is its recording (internal/dev/fixture)
// served in process by internal/dev/fakemcp over in-memory transports: no
// child process, no network, and everything above (the registry, the
// provenance, the frame limit on requests) as for a real server. Each
// connection reads the file again and starts a fresh matcher.
// Options.Recorder records any server's session (codemode --record).
//
// # Provenance
//
// Every tools/call carries the calling execution's ids in _meta:
// "codemode/callId", "codemode/rootCallId" and, for nested calls,
// "codemode/parentCallId".
//
// # Tool list changes
//
// notifications/tools/list_changed makes the manager list the server's
// tools again and reconcile the registry: new tools are added, vanished
// ones removed, changed ones (description or schemas) replaced. A
// reconnect reconciles the same way.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/tools"
)

// Provenance keys of the _meta every upstream tools/call carries.
const (
	MetaCallID       = "codemode/callId"
	MetaRootCallID   = "codemode/rootCallId"
	MetaParentCallID = "codemode/parentCallId" // absent for a root call
)

// ToolName returns the registry name of upstream tool tool of server.
func ToolName(server, tool string) string { return "mcp__" + server + "__" + tool }

// Options configures [Start]. A zero Options means the defaults.
type Options struct {
	// Logger receives connection events and every line the stdio servers
	// write to their stderr (at Info, with attribute "server"). If nil,
	// nothing is logged. Nothing is ever written to our stdout.
	Logger *slog.Logger
	// CallTimeout bounds each upstream call on top of the caller's own
	// deadline. If zero, only the caller's deadline applies.
	CallTimeout time.Duration
	// ConnectTimeout bounds one connection attempt (start, initialize and
	// the first tools/list). If zero, 30s.
	ConnectTimeout time.Duration
	// PingTimeout bounds the health ping sent after a call timed out; a
	// server that does not answer in time is restarted. If zero, 5s.
	PingTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait between restart attempts.
	// If zero, 100ms and 30s.
	MinBackoff, MaxBackoff time.Duration
	// HealthyAfter is how long a connection must stay up for the backoff
	// to start again from MinBackoff. If zero, 30s.
	HealthyAfter time.Duration
	// ReconnectWait bounds how long a call made while its server is
	// starting or restarting waits for the server to be ready before it
	// fails with UPSTREAM_UNAVAILABLE (the call's own deadline bounds the
	// wait too; see the package documentation). If zero, 10s; if
	// negative, such calls fail at once.
	ReconnectWait time.Duration
	// TerminateTimeout is how long closing a stdio server waits, after
	// closing its stdin, before SIGTERM (and as long again before SIGKILL).
	// If zero, 2s.
	TerminateTimeout time.Duration
	// Transport, if non-nil, makes the transport for a server instead of
	// the default (the command over its stdin and stdout for stdio servers,
	// mcp.StreamableClientTransport for HTTP ones, both with the server's
	// frame limit applied to what they read). It is called for every
	// connection attempt; tests use it for in-memory servers. What such a
	// transport reads is not filtered: the frame limit then bounds
	// requests only.
	Transport func(name string, s config.Server) (mcp.Transport, error)
	// Recorder, if non-nil, is told what every server sent: see
	// [Recorder]. A server given as a fixture is recorded like any other.
	Recorder Recorder
	// Trace, if non-nil, wraps every tools/call sent to a server (see
	// [TraceCall]); telemetry starts a client span there and adds the W3C
	// trace context to the request's _meta.
	Trace func(ctx context.Context, call TraceCall) (context.Context, func(error))
	// WrapHTTP, if non-nil, wraps the HTTP transport of streamable-HTTP
	// servers (telemetry adds the trace context headers of each request's
	// context).
	WrapHTTP func(http.RoundTripper) http.RoundTripper
}

// TraceCall is a tools/call about to be sent, as Options.Trace sees it.
// Trace may add entries to Meta (the request's _meta) and returns the
// context to send the request under and a function that is called once,
// with the call's error (nil on success), when it is over.
type TraceCall struct {
	Server, Tool string
	Meta         mcp.Meta
}

// Recorder observes each server's session as the client sees it, so it
// can be written down as a fixture (*fixture.Recorder implements it).
// Both methods are called synchronously and must not block: RecordSession
// by the server's own goroutine after every connection and every
// re-listing of its tools (list_changed), with the initialize result and
// the whole tool list; RecordCall on the calling goroutine after every
// tools/call that was sent, with the arguments sent and the result or
// error received (an error that is no answer from the server, such as a
// lost connection or a cancellation, is passed too, as a non-JSON-RPC
// error). A reply our frame filter replaced (RESULT_TOO_LARGE) is not
// passed: the server's answer was never read.
type Recorder interface {
	RecordSession(server string, init *mcp.InitializeResult, tools []*mcp.Tool)
	RecordCall(server string, x fixture.Exchange)
}

func (o *Options) setDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.ConnectTimeout, 30*time.Second)
	def(&o.PingTimeout, 5*time.Second)
	def(&o.MinBackoff, 100*time.Millisecond)
	def(&o.MaxBackoff, 30*time.Second)
	def(&o.HealthyAfter, 30*time.Second)
	def(&o.TerminateTimeout, 2*time.Second)
	def(&o.ReconnectWait, 10*time.Second)
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// State is a server's connection state.
type State string

// States of a server.
const (
	StateStarting   State = "starting"   // the first connection attempt is in progress
	StateReady      State = "ready"      // connected; its tools are registered
	StateRestarting State = "restarting" // disconnected or failed; a new attempt is scheduled
	StateClosed     State = "closed"     // the manager was closed
)

// ServerStatus is a snapshot of one server.
type ServerStatus struct {
	Name      string
	Transport string // config.TransportStdio or config.TransportHTTP
	State     State
	// Tools is the number of tools registered for the server.
	Tools int
	// Connects counts successful connections (restarts are Connects-1).
	Connects int
	// Failures counts failed attempts and lost connections.
	Failures int
	// LastError describes the last failure; "" if there was none.
	LastError string
	// Since is when State last changed.
	Since time.Time
	// Waiting counts the calls waiting for the server to be ready.
	Waiting int
}

// Manager owns the connections to the upstream servers and their tools in
// the registry. Its methods are safe for concurrent use.
type Manager struct {
	reg  *tools.Registry
	opts Options
	log  *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	servers []*server // sorted by name; fixed after Start

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every status change
	closed  bool
}

// Start connects to every server and registers their tools into reg. It
// returns when every server has registered its tools or failed its first
// attempt (bounded by Options.ConnectTimeout); failures are logged and
// retried in the background, so Start fails only for invalid arguments (a
// server name that is not valid) or when ctx is
// done before start-up completes. ctx bounds start-up only; the manager
// lives until [Manager.Close].
func Start(ctx context.Context, reg *tools.Registry, servers map[string]config.Server, opts Options) (*Manager, error) {
	if reg == nil {
		return nil, errors.New("upstream: nil registry")
	}
	cfg := &config.Config{Servers: servers}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("upstream: %w", err)
	}
	opts.setDefaults()
	m := &Manager{reg: reg, opts: opts, log: opts.Logger, changed: make(chan struct{})}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	names := cfg.ServerNames()
	for _, name := range names {
		m.servers = append(m.servers, newServer(m, name, servers[name]))
	}
	first := make(chan struct{}, len(m.servers))
	for _, s := range m.servers {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			s.run(first)
		}()
	}
	for range m.servers {
		select {
		case <-first:
		case <-ctx.Done():
			m.Close()
			return nil, fmt.Errorf("upstream: start: %w", ctx.Err())
		}
	}
	return m, nil
}

// Close disconnects every server, stops the stdio processes (reaping
// them), unregisters the tools and waits for every goroutine of the
// manager to finish. Calls in flight, and calls waiting for a restart,
// fail with UPSTREAM_UNAVAILABLE. Close is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	already := m.closed
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.wg.Wait()
	if !already {
		m.notify()
	}
	return nil
}

// Status returns a snapshot of every server, sorted by name.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WaitFor blocks until cond, evaluated on [Manager.Status] at start and
// after every status change (state, tool set, counters), returns true, or
// until ctx is done.
func (m *Manager) WaitFor(ctx context.Context, cond func([]ServerStatus) bool) error {
	for {
		m.mu.Lock()
		ch := m.changed
		m.mu.Unlock()
		if cond(m.Status()) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitReady blocks until the named server is ready, or ctx is done.
func (m *Manager) WaitReady(ctx context.Context, name string) error {
	if !slices.ContainsFunc(m.servers, func(s *server) bool { return s.name == name }) {
		return fmt.Errorf("upstream: no server %q", name)
	}
	return m.WaitFor(ctx, func(ss []ServerStatus) bool {
		for _, s := range ss {
			if s.Name == name {
				return s.State == StateReady
			}
		}
		return false
	})
}

// notify wakes every WaitFor.
func (m *Manager) notify() {
	m.mu.Lock()
	close(m.changed)
	m.changed = make(chan struct{})
	m.mu.Unlock()
}
