package front

import (
	"crypto/rand"
	"net/http"
	"regexp"
	"time"

	"github.com/codemode/codemode/internal/edge/httpfence"
	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// ReplicaPattern is what a replica name must match: a DNS label in lower
// case, so that it reads the same in a session id, a log line and an nginx
// map.
const ReplicaPattern = `^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`

var replicaRe = regexp.MustCompile(ReplicaPattern)

// SessionIDHeader is the header that carries a streamable-HTTP session id.
const SessionIDHeader = "Mcp-Session-Id"

// HTTPOptions configures HTTPHandler.
type HTTPOptions struct {
	// Fence is the docs/contract.md#sandbox fence every request passes first. It is the
	// only Host/Origin check that decides: the MCP SDK's own localhost
	// protection (which refuses a non-loopback Host on a loopback
	// listener, before trustedHosts could admit it) is switched off.
	Fence httpfence.Config
	// Stateless serves every request with a session of its own that ends
	// with the request: no Mcp-Session-Id, so any replica can answer any
	// request. Only for per-call mode without elicitation: nothing a
	// session holds survives its request, and the server cannot ask the
	// client anything. If false, sessions last until the client ends them
	// or they idle for SessionTimeout.
	Stateless bool
	// SessionTimeout ends a session that received no request for this
	// long, and with it the agent and its persistent environments. If
	// zero, one hour.
	SessionTimeout time.Duration
	// Routes are served beside /mcp, behind the same fence, by
	// http.ServeMux pattern ("GET /healthz", "/runs/"): health, metrics,
	// the run viewer.
	Routes map[string]http.Handler
}

// preferJSONResponse is StreamableHTTPOptions.PreferJSONResponse; a
// variable for the benchmarks' A/B (BenchmarkHTTPTrivial).
var preferJSONResponse = true

// HTTPHandler serves streamable HTTP at /mcp; every path, /mcp or not, is
// behind the fence. While the server drains (Drain), a request that would
// open a session is refused with 503.
func (s *Server) HTTPHandler(opts HTTPOptions) (http.Handler, error) {
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = time.Hour
	}
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Stateless:      opts.Stateless,
		SessionTimeout: opts.SessionTimeout,
		// The fence below has already decided on Host and Origin, with the
		// configured trusted hosts; the SDK's check knows none of them.
		DisableLocalhostProtection: true,
		// A call's reply is one JSON body unless something else for the
		// call (progress with the console's lines, an elicitation) is sent
		// before it, which turns the reply into an event stream: most
		// calls send nothing else, and a JSON body is one write with a
		// Content-Length where an event stream is an event, a flush and a
		// chunked terminator, with event parsing in the client
		// (internal/gosdk/PATCHES.md, docs/benchmarks.md "Streamable HTTP
		// per-call throughput").
		PreferJSONResponse: preferJSONResponse,
		// A request body may be as large as a stdio frame, so that a
		// program or arguments over their own limits get the tool error
		// that teaches (PROGRAM_TOO_LARGE, ARGUMENTS_TOO_LARGE) over HTTP
		// as over stdio, instead of the SDK's 413 at 4 MiB, which a model
		// never sees. Past it, 413: the transport's bound, where stdio
		// ends the connection.
		MaxRequestBodyBytes: stdiox.DefaultMaxFrame,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			// The standalone event stream: it lasts as long as its
			// session, which Drain ends; nothing to wait for.
			mcpHandler.ServeHTTP(w, r)
			return
		}
		// Counted before the draining check, so Drain cannot miss a
		// request that passed it.
		s.posts.Add(1)
		defer func() {
			// Decrement, then wake Drain: woken first, it would see this
			// request still in flight and wait for a kick that never came.
			s.posts.Add(-1)
			s.kick()
		}()
		if s.draining.Load() && (opts.Stateless || r.Header.Get(SessionIDHeader) == "") {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "Service Unavailable: the server is shutting down", http.StatusServiceUnavailable)
			return
		}
		// The handler returns once every reply of the request is written.
		mcpHandler.ServeHTTP(w, r)
	}))
	for pattern, h := range opts.Routes {
		mux.Handle(pattern, h)
	}
	return httpfence.Wrap(mux, opts.Fence)
}

// newSessionID is the SDK's GetSessionID: "<replica>.<random>", or the
// random part alone without a replica name. The random part is 128 bits
// from crypto/rand, so an id names one session of one process: a replica
// that restarts under the same name, or another that receives the id,
// answers 404 for it (the SDK's lookup), never another session's state.
func (s *Server) newSessionID() string {
	if s.opts.Replica == "" {
		return rand.Text()
	}
	return s.opts.Replica + "." + rand.Text()
}

// ValidReplica reports whether name matches ReplicaPattern.
func ValidReplica(name string) bool { return replicaRe.MatchString(name) }
