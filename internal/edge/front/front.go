// Package front serves the code-mode preset over MCP: each client session
// is an agent of the preset; tools/list answers the agent's assembled (masked)
// tool list; tools/call runs through the registry's Execute, so a masked
// name gets the guard's self-healing hint as a tool error instead of the
// SDK's "unknown tool" protocol error.
package front

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// Version is reported to clients.
var Version = "0.1.0"

// Options configures a Server.
type Options struct {
	Registry *tools.Registry
	Preset   *scope.Scope // the preset the sessions' agents belong to
	// Logger receives session events. If nil, nothing is logged.
	Logger *slog.Logger
	// OnSession, if set, is called once per session with the session's
	// agent, before the session's first call runs: how the policy finds
	// whom to ask about a call (it forgets the session with the agent's
	// scope, disposed when the session ends).
	OnSession func(*tools.Agent, *mcp.ServerSession)
	// Replica names this process in the HTTP session ids it hands out:
	// "<replica>.<random>", so that a load balancer in front of several
	// processes can send a session's requests to the one that holds it
	// (see docs/deploy.md). It must match [ReplicaPattern]. If empty, ids
	// are random alone.
	Replica string
	// CallContext, if non-nil, derives the context a tools/call runs under
	// from the request's _meta and, over HTTP, its headers (telemetry
	// takes the caller's W3C trace context from them).
	CallContext func(ctx context.Context, meta mcp.Meta, header http.Header) context.Context
}

// Server is the MCP front. One Server serves any number of sessions.
type Server struct {
	opts     Options
	log      *slog.Logger
	mcp      *mcp.Server
	sessions sync.Map // *mcp.ServerSession → *tools.Agent
	seq      atomic.Int64
	calls    atomic.Int64
	unwatch  func()
	drainState
}

// New builds the front. The instructions are the Code Mode section of a
// session's assembly, assembled again for every session that initializes.
func New(ctx context.Context, opts Options) (*Server, error) {
	s := &Server{opts: opts, log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if opts.Replica != "" && !replicaRe.MatchString(opts.Replica) {
		return nil, fmt.Errorf("front: replica name %q does not match %s", opts.Replica, ReplicaPattern)
	}
	instructions, err := s.instructions(ctx)
	if err != nil {
		return nil, err
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "codemode", Version: Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       s.log,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
		GetSessionID: s.newSessionID,
	})
	s.mcp.AddReceivingMiddleware(s.middleware)
	s.unwatch = opts.Registry.OnChange(func(l tools.Layer) {
		if l.Kind != tools.LayerAgent || s.hasAgent(l.Key) {
			s.toolsChanged()
		}
	})
	return s, nil
}

// Close stops watching the registry. Sessions end with their transports.
func (s *Server) Close() { s.unwatch() }

// errShuttingDown answers a call that arrives while the server drains.
var errShuttingDown = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "codemode: the server is shutting down; start a new session"}

// changeProbe is a tool the SDK's own table holds for an instant so that it
// sends notifications/tools/list_changed (see toolsChanged).
const changeProbe = "codemode.list-changed-probe" // a valid tool name: the SDK logs an error for others

// toolsChanged tells every session that its tool list may have changed:
// code_run's description carries the catalog of callable tools, and an
// upstream's native tools are listed directly. The SDK has no call to send
// the notification by itself, but it sends one (debounced, to every
// session, honouring subscriptions of newer protocol versions) whenever its
// own tool table changes; that table is otherwise unused, since the
// middleware answers tools/list and tools/call, so adding and removing a
// probe tool is invisible to clients.
func (s *Server) toolsChanged() {
	s.mcp.AddTool(&mcp.Tool{Name: changeProbe, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	s.mcp.RemoveTools(changeProbe)
}

func (s *Server) hasAgent(id string) bool {
	found := false
	s.sessions.Range(func(_, a any) bool {
		found = a.(*tools.Agent).ID() == id
		return !found
	})
	return found
}

// instructions assembles for a throw-away agent and returns the Code Mode
// section.
func (s *Server) instructions(ctx context.Context) (string, error) {
	a, err := s.opts.Registry.NewAgent(s.opts.Preset, "instructions-probe")
	if err != nil {
		return "", err
	}
	defer a.Scope().Dispose()
	asm, err := s.opts.Registry.Assemble(ctx, a, tools.AssembleOptions{})
	if err != nil {
		return "", fmt.Errorf("front: assemble: %w", err)
	}
	for _, sec := range asm.Sections {
		if sec.Name == "code-mode" {
			return sec.Text, nil
		}
	}
	return "", nil
}

// agentFor returns the session's agent, creating it on first use. The
// agent (and so its persistent environments) is released when the session
// ends.
func (s *Server) agentFor(ss *mcp.ServerSession) (*tools.Agent, error) {
	if a, ok := s.sessions.Load(ss); ok {
		return a.(*tools.Agent), nil
	}
	id := "session-" + strconv.FormatInt(s.seq.Add(1), 10)
	if sid := ss.ID(); sid != "" {
		id += "-" + sid
	}
	a, err := s.opts.Registry.NewAgent(s.opts.Preset, id)
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.sessions.LoadOrStore(ss, a); loaded {
		a.Scope().Dispose()
		return prev.(*tools.Agent), nil
	}
	if s.opts.OnSession != nil {
		s.opts.OnSession(a, ss)
	}
	s.log.Info("front: session started", slog.String("agent", id))
	go func() {
		_ = ss.Wait()
		s.sessions.Delete(ss)
		a.Scope().Dispose()
		s.log.Info("front: session ended", slog.String("agent", id))
	}()
	return a, nil
}

func (s *Server) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !strings.HasPrefix(method, "notifications/") {
			// A call: Drain waits for its reply (see drain.go).
			s.running.Add(1)
			defer func() {
				s.answered.Add(1)
				s.running.Add(-1)
				s.kick()
			}()
			if s.draining.Load() {
				return nil, errShuttingDown
			}
		}
		switch r := req.(type) {
		case *mcp.ListToolsRequest:
			return s.listTools(ctx, r)
		case *mcp.CallToolRequest:
			return s.callTool(ctx, r)
		}
		res, err := next(ctx, method, req)
		if err == nil {
			s.freshInstructions(ctx, res)
		}
		return res, err
	}
}

// freshInstructions replaces the instructions of an initialize (or
// discover) result, which the SDK takes from the options New set, with the
// Code Mode section as it is now: tools and servers may have come and gone
// since start-up, and a session must not begin with a stale account.
func (s *Server) freshInstructions(ctx context.Context, res mcp.Result) {
	switch r := res.(type) {
	case *mcp.InitializeResult:
		if text, err := s.instructions(ctx); err == nil {
			r.Instructions = text
		}
	case *mcp.DiscoverResult:
		if text, err := s.instructions(ctx); err == nil {
			r.Instructions = text
		}
	}
}

func (s *Server) listTools(ctx context.Context, r *mcp.ListToolsRequest) (*mcp.ListToolsResult, error) {
	a, err := s.agentFor(r.Session)
	if err != nil {
		return nil, err
	}
	asm, err := s.opts.Registry.Assemble(ctx, a, tools.AssembleOptions{})
	if err != nil {
		return nil, err
	}
	out := &mcp.ListToolsResult{Tools: []*mcp.Tool{}}
	for _, t := range asm.Tools {
		mt := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if len(t.OutputSchema) > 0 {
			mt.OutputSchema = t.OutputSchema
		}
		out.Tools = append(out.Tools, mt)
	}
	return out, nil
}

func (s *Server) callTool(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := s.agentFor(r.Session)
	if err != nil {
		return nil, err
	}
	if tok := r.Params.GetProgressToken(); tok != nil {
		p := newProgress(ctx, r.Session, tok)
		defer p.finish()
		ctx = codemode.WithProgress(ctx, p.line)
	}
	if f := s.opts.CallContext; f != nil {
		var header http.Header
		if r.Extra != nil {
			header = r.Extra.Header
		}
		ctx = f(ctx, r.Params.Meta, header)
	}
	args := r.Params.Arguments
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	res := s.opts.Registry.Execute(ctx, tools.Input{
		CallID:    "mcp_" + strconv.FormatInt(s.calls.Add(1), 10),
		Name:      r.Params.Name,
		Arguments: args,
		Agent:     a,
	})
	return ToMCP(res), nil
}

// ToMCP converts a registry result to an MCP tool result.
func ToMCP(res *tools.Result) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: res.IsError, Content: []mcp.Content{}}
	for _, c := range res.Content {
		switch c := c.(type) {
		case tools.Text:
			out.Content = append(out.Content, &mcp.TextContent{Text: c.Text})
		case tools.Image:
			out.Content = append(out.Content, &mcp.ImageContent{Data: c.Data, MIMEType: c.MIMEType})
		}
	}
	if len(res.Value) > 0 && !res.IsError {
		out.StructuredContent = res.Value
	}
	if res.Err != nil {
		out.Meta = mcp.Meta{"codemode/error": map[string]any{"code": res.Err.Code, "message": res.Err.Message}}
	}
	return out
}

// ServeStdio serves one session on stdin/stdout until the client ends it
// or ctx ends; in the second case the session is still open, for Drain to
// end gracefully. When stdin and stdout are pipes they are switched to
// non-blocking mode and read through the netpoller (docs/contract.md#stdio).
func (s *Server) ServeStdio(ctx context.Context, stdin, stdout *os.File) error {
	r, w, polled, err := stdiox.Pipes(stdin, stdout)
	if err != nil {
		return err
	}
	s.log.Debug("front: stdio", slog.Bool("netpoller", polled))
	stdiox.Spin(r, stdiox.SpinFromEnv())
	s.stdio.Store(true)
	// The session must outlive ctx: when ctx ends, Drain closes it after
	// the calls it is running have answered.
	ss, err := s.mcp.Connect(context.WithoutCancel(ctx), stdiox.Transport(r, &replyCounter{WriteCloser: w, d: &s.drainState}), nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return nil
	}
}

// Connect serves one session on t (tests use in-memory transports).
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}
