package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"sync"
	"time"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/tools"
)

// server is one upstream server and the goroutine (run) that keeps it
// connected. run is the only goroutine that connects, closes sessions and
// changes the registered tool set; calls only read the current session.
type server struct {
	m    *Manager
	name string
	cfg  config.Server
	log  *slog.Logger

	listChanged chan struct{} // cap 1: a tools/list_changed arrived
	check       chan struct{} // cap 1: a call timed out; ping the server

	mu       sync.Mutex
	state    State
	since    time.Time
	sess     *mcp.ClientSession // nil unless ready
	connects int
	failures int
	lastErr  string
	stderr   string              // the last line the current attempt's process wrote to stderr
	retryAt  time.Time           // when run tries again; zero unless restarting and waiting to
	changed  chan struct{}       // closed and replaced when state, sess or retryAt change
	waiting  int                 // calls waiting for a session
	mounted  map[string]*mounted // by upstream tool name; run's alone
}

type mounted struct {
	fingerprint string
	reg         *tools.Registration
}

func newServer(m *Manager, name string, cfg config.Server) *server {
	if cfg.Transport == "" { // programmatic configs may leave it to Command/URL/Fixture
		switch {
		case cfg.URL != "":
			cfg.Transport = config.TransportHTTP
		case cfg.Fixture != "":
			cfg.Transport = config.TransportFixture
		default:
			cfg.Transport = config.TransportStdio
		}
	}
	return &server{
		m: m, name: name, cfg: cfg,
		log:         m.log.With(slog.String("server", name)),
		listChanged: make(chan struct{}, 1),
		check:       make(chan struct{}, 1),
		state:       StateStarting,
		since:       time.Now(),
		changed:     make(chan struct{}),
		mounted:     map[string]*mounted{},
	}
}

func (s *server) status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return ServerStatus{
		Name: s.name, Transport: s.cfg.Transport, State: s.state, Tools: len(s.mounted),
		Connects: s.connects, Failures: s.failures, LastError: s.lastErr, Since: s.since,
		Waiting: s.waiting,
	}
}

// setStderr records the last line the server's process wrote to stderr.
func (s *server) setStderr(line string) {
	s.mu.Lock()
	s.stderr = human.OneLine(line, 500)
	s.mu.Unlock()
}

// withStderr adds the server's last stderr line, if any, to err.
func (s *server) withStderr(err error) error {
	s.mu.Lock()
	line := s.stderr
	s.mu.Unlock()
	if line == "" || err == nil {
		return err
	}
	return fmt.Errorf("%w; its last stderr line: %s", err, line)
}

// setWaiting adds d to the count of calls waiting for a session.
func (s *server) setWaiting(d int) {
	s.mu.Lock()
	s.waiting += d
	s.mu.Unlock()
	s.m.notify()
}

// setRetry records when run tries to connect again, for calls deciding
// whether to wait.
func (s *server) setRetry(at time.Time) {
	s.mu.Lock()
	s.retryAt = at
	s.broadcast()
	s.mu.Unlock()
}

// broadcast wakes the calls waiting for a session. s.mu must be held.
func (s *server) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *server) setState(st State, sess *mcp.ClientSession, failure error) {
	s.mu.Lock()
	if st != s.state {
		s.since = time.Now()
	}
	s.state, s.sess, s.retryAt = st, sess, time.Time{}
	if st == StateReady {
		s.connects++
	}
	if failure != nil {
		s.failures++
		s.lastErr = failure.Error()
	}
	if st == StateReady {
		s.stderr = "" // what it said while starting is not news
	}
	s.broadcast()
	s.mu.Unlock()
	s.m.notify()
}

// run keeps the server connected until the manager closes. first receives
// one value once the first attempt has ended, either way.
func (s *server) run(first chan<- struct{}) {
	ctx := s.m.ctx
	opts := &s.m.opts
	signalled := false
	signalFirst := func() {
		if !signalled {
			signalled = true
			first <- struct{}{}
		}
	}
	defer func() {
		signalFirst()
		s.unmountAll()
		s.setState(StateClosed, nil, nil)
	}()
	backoff := opts.MinBackoff
	for {
		sess, closeTransport, err := s.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			err = s.withStderr(err)
			s.log.Warn("upstream: cannot connect", slog.Any("error", err), slog.Duration("retryIn", backoff))
			s.setState(StateRestarting, nil, fmt.Errorf("connecting: %w", err))
			signalFirst()
		} else {
			up := time.Now()
			s.setState(StateReady, sess, nil)
			s.log.Info("upstream: connected", slog.Int("tools", s.status().Tools))
			signalFirst()
			done := make(chan error, 1)
			go func() { done <- sess.Wait() }()
			reason, ended := s.serve(ctx, sess, done)
			closing := ctx.Err() != nil
			if closing {
				s.setState(StateClosed, nil, nil)
			} else {
				// Calls see the outage at once, before the (possibly slow)
				// shutdown of the old process.
				reason = s.withStderr(reason)
				s.setState(StateRestarting, nil, reason)
				s.log.Warn("upstream: disconnected; restarting", slog.Any("reason", reason), slog.Duration("retryIn", backoff))
			}
			_ = sess.Close() // reaps a stdio child
			closeTransport()
			if !ended {
				<-done // Close makes Wait return
			}
			if closing {
				return
			}
			if time.Since(up) >= opts.HealthyAfter {
				backoff = opts.MinBackoff
			}
		}
		s.setRetry(time.Now().Add(backoff))
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, opts.MaxBackoff)
	}
}

// serve follows a live session until it ends (ended: done delivered
// sess.Wait's result), the server stops answering, or the manager closes.
// It returns why the session is over.
func (s *server) serve(ctx context.Context, sess *mcp.ClientSession, done <-chan error) (reason error, ended bool) {
	for {
		select {
		case err := <-done:
			if err == nil {
				err = errors.New("the server closed the connection")
			}
			return fmt.Errorf("connection lost: %w", err), true
		case <-s.listChanged:
			sctx, cancel := context.WithTimeout(ctx, s.m.opts.ConnectTimeout)
			err := s.sync(sctx, sess)
			cancel()
			if err != nil && ctx.Err() == nil {
				s.log.Warn("upstream: re-listing tools after list_changed failed", slog.Any("error", err))
			}
		case <-s.check:
			pctx, cancel := context.WithTimeout(ctx, s.m.opts.PingTimeout)
			err := sess.Ping(pctx, nil)
			cancel()
			if err != nil && ctx.Err() == nil {
				return fmt.Errorf("not responding to ping after a call timed out: %w", err), false
			}
		case <-ctx.Done():
			return ctx.Err(), false
		}
	}
}

// connect starts one session and mounts the server's tools. The returned
// closeTransport releases what the transport holds beyond the session
// (idle HTTP connections, the stderr logger's partial line).
func (s *server) connect(ctx context.Context) (sess *mcp.ClientSession, closeTransport func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.ConnectTimeout)
	defer cancel()
	t, closeTransport, err := s.transport()
	if err != nil {
		return nil, nil, err
	}
	var caps *mcp.ClientCapabilities
	if !s.cfg.Roots {
		// nil would mean the SDK's default, {"roots":{"listChanged":true}};
		// codemode has no roots to offer.
		caps = &mcp.ClientCapabilities{}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "codemode", Version: "1"}, &mcp.ClientOptions{
		Capabilities: caps,
		Logger:       s.log, // the SDK's own warnings, on stderr with ours
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			// Never block the SDK's receive path: run re-lists.
			select {
			case s.listChanged <- struct{}{}:
			default:
			}
		},
	})
	sess, err = client.Connect(ctx, t, nil)
	if err != nil {
		closeTransport()
		return nil, nil, err
	}
	if err := s.sync(ctx, sess); err != nil {
		_ = sess.Close()
		closeTransport()
		return nil, nil, fmt.Errorf("listing tools: %w", err)
	}
	return sess, closeTransport, nil
}

// frameLimit is the server's maxFrameBytes, or its default.
func (s *server) frameLimit() int { return int(s.cfg.FrameLimit()) }

func (s *server) transport() (mcp.Transport, func(), error) {
	if f := s.m.opts.Transport; f != nil {
		t, err := f(s.name, s.cfg)
		return t, func() {}, err
	}
	switch s.cfg.Transport {
	case config.TransportStdio:
		cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
		cmd.Dir = s.cfg.Cwd
		if len(s.cfg.Env) > 0 {
			keys := make([]string, 0, len(s.cfg.Env))
			for k := range s.cfg.Env {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			cmd.Env = os.Environ()
			for _, k := range keys {
				cmd.Env = append(cmd.Env, k+"="+s.cfg.Env[k])
			}
		}
		// The child's stderr goes to our logger (itself on stderr), never
		// to our stdout, which may be a protocol stream. Its last line is
		// kept: a server that cannot start usually says why there
		// ("GITHUB_TOKEN environment variable is required"), and that is
		// what its error should show without -v.
		lw := newLineWriter(s.log)
		s.setStderr("")
		lw.onLine = s.setStderr
		cmd.Stderr = lw
		// A grandchild holding the stderr pipe must not keep Wait (and so
		// Close) waiting forever.
		cmd.WaitDelay = s.m.opts.TerminateTimeout
		// Its own process group: what the server spawned goes with it.
		ownGroup(cmd)
		release := func() {
			if stopGroup(cmd, s.m.opts.TerminateTimeout) > 0 {
				s.log.Info("upstream: stopped processes the server left behind", slog.Int("pgid", cmd.Process.Pid))
			}
			lw.Flush()
		}
		return &stdioTransport{cmd: cmd, limit: s.frameLimit(), terminate: s.m.opts.TerminateTimeout, log: s.log}, release, nil
	case config.TransportFixture:
		return s.fixtureTransport()
	case config.TransportHTTP:
		base := http.DefaultTransport.(*http.Transport).Clone()
		var rt http.RoundTripper = base
		if wrap := s.m.opts.WrapHTTP; wrap != nil {
			rt = wrap(base)
		}
		t := &mcp.StreamableClientTransport{
			Endpoint: s.cfg.URL,
			HTTPClient: &http.Client{Transport: &frameLimitTransport{
				base:  &headerTransport{base: rt, headers: s.cfg.Headers},
				limit: s.frameLimit(),
				log:   s.log,
			}},
			// Our RoundTripper bounds every event; the SDK's bound (which
			// would end the connection) only has to stay out of the way.
			MaxEventSize: s.frameLimit() + sdkFrameMargin,
		}
		return t, base.CloseIdleConnections, nil
	}
	return nil, nil, fmt.Errorf("server %s: unknown transport %q", s.name, s.cfg.Transport)
}

// fixtureTransport serves the server's recording in process and returns
// the client's end of an in-memory transport to it.
func (s *server) fixtureTransport() (mcp.Transport, func(), error) {
	fx, err := fixture.ReadFile(s.cfg.Fixture)
	if err != nil {
		return nil, nil, err
	}
	lw := newLineWriter(s.log)
	srv, err := fakemcp.NewFixtureServer(fx, fakemcp.Options{Log: lw})
	if err != nil {
		return nil, nil, fmt.Errorf("fixture %s: %w", s.cfg.Fixture, err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("fixture %s: %w", s.cfg.Fixture, err)
	}
	return ct, func() { _ = ss.Close(); lw.Flush() }, nil
}

// headerTransport adds the configured headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// sync lists the server's tools and reconciles the registry with them.
func (s *server) sync(ctx context.Context, sess *mcp.ClientSession) error {
	var list []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		list = append(list, t)
	}
	s.reconcile(list)
	if r := s.m.opts.Recorder; r != nil {
		r.RecordSession(s.name, sess.InitializeResult(), list)
	}
	return nil
}

// reconcile makes the registry hold exactly list's tools: it adds new ones,
// replaces changed ones and removes vanished ones. Only run calls it.
func (s *server) reconcile(list []*mcp.Tool) {
	seen := map[string]bool{}
	changed := false
	for _, t := range list {
		if seen[t.Name] {
			s.log.Warn("upstream: duplicate tool name; keeping the first", slog.String("tool", t.Name))
			continue
		}
		seen[t.Name] = true
		def, err := s.definition(t)
		if err != nil {
			s.log.Warn("upstream: skipping tool", slog.String("tool", t.Name), slog.Any("error", err))
			continue
		}
		fp := fingerprint(def)
		old := s.mounted[t.Name]
		if old != nil && old.fingerprint == fp {
			continue
		}
		changed = true
		if old != nil {
			// Updated in place: a call never finds the name missing.
			if err := s.update(old.reg, def); err != nil {
				s.log.Warn("upstream: cannot update tool", slog.String("tool", def.Name), slog.Any("error", err))
				continue
			}
			s.setMounted(t.Name, &mounted{fingerprint: fp, reg: old.reg})
			continue
		}
		reg, err := s.register(def)
		if err != nil {
			s.log.Warn("upstream: cannot register tool", slog.String("tool", def.Name), slog.Any("error", err))
			continue
		}
		s.setMounted(t.Name, &mounted{fingerprint: fp, reg: reg})
	}
	for name, mt := range s.mounted {
		if !seen[name] {
			mt.reg.Remove()
			s.setMounted(name, nil)
			changed = true
		}
	}
	if changed {
		s.m.notify()
	}
}

func (s *server) setMounted(name string, mt *mounted) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if mt == nil {
		delete(s.mounted, name)
	} else {
		s.mounted[name] = mt
	}
}

func (s *server) unmountAll() {
	s.mu.Lock()
	ms := s.mounted
	s.mounted = map[string]*mounted{}
	s.mu.Unlock()
	for _, mt := range ms {
		mt.reg.Remove()
	}
}

// definition turns an upstream tool into a registry tool.
func (s *server) definition(t *mcp.Tool) (tools.Tool, error) {
	def := tools.Tool{Name: ToolName(s.name, t.Name), Description: t.Description, Annotations: annotations(t.Annotations)}
	if def.Description == "" {
		def.Description = t.Title
	}
	if t.InputSchema != nil {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return def, fmt.Errorf("input schema: %w", err)
		}
		def.InputSchema = b
	}
	if t.OutputSchema != nil {
		b, err := json.Marshal(t.OutputSchema)
		if err != nil {
			return def, fmt.Errorf("output schema: %w", err)
		}
		def.OutputSchema = b
	}
	upstreamName := t.Name
	def.Handler = func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		return s.call(ctx, e, upstreamName)
	}
	return def, nil
}

// annotations keeps an upstream tool's hints, which policies match on. The
// SDK reads readOnlyHint and idempotentHint as plain booleans, so an absent
// one reads false: MCP's default for both.
func annotations(a *mcp.ToolAnnotations) *tools.Annotations {
	if a == nil {
		return nil
	}
	ro, idem := a.ReadOnlyHint, a.IdempotentHint
	return &tools.Annotations{Title: a.Title, ReadOnlyHint: &ro, DestructiveHint: a.DestructiveHint, IdempotentHint: &idem, OpenWorldHint: a.OpenWorldHint}
}

// layer is where every upstream tool goes: the global layer. Which tools a
// model sees is the preset's decision, not the upstream's.
func (s *server) layer(string) tools.Layer { return tools.GlobalLayer() }

// register adds def in its layer. An input schema our validator cannot
// resolve is replaced by a permissive one (the upstream still validates),
// so the tool stays callable.
func (s *server) register(def tools.Tool) (*tools.Registration, error) {
	l := s.layer(def.Name)
	reg, err := s.m.reg.Register(l, def)
	if err != nil && len(def.InputSchema) > 0 && !errors.Is(err, tools.ErrDuplicate) {
		s.warnSchema(def.Name, err)
		def.InputSchema = nil
		reg, err = s.m.reg.Register(l, def)
	}
	return reg, err
}

// update replaces a mounted tool's definition in place, with the same
// fallback for an unusable input schema as register.
func (s *server) update(reg *tools.Registration, def tools.Tool) error {
	err := reg.Update(def)
	if err != nil && len(def.InputSchema) > 0 && !errors.Is(err, tools.ErrRemoved) {
		s.warnSchema(def.Name, err)
		def.InputSchema = nil
		err = reg.Update(def)
	}
	return err
}

func (s *server) warnSchema(name string, err error) {
	s.log.Warn("upstream: input schema not usable for validation; registering without it",
		slog.String("tool", name), slog.Any("error", err))
}

func fingerprint(t tools.Tool) string {
	b, _ := json.Marshal([]any{t.Description, t.InputSchema, t.OutputSchema})
	return string(b)
}
