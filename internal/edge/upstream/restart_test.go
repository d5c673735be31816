package upstream

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// gatedServer serves the fake in memory. The first connection is made at
// once; the later ones wait until gate is closed (or stop is).
type gatedServer struct {
	gate, stop chan struct{}
	mu         sync.Mutex
	sessions   []*mcp.ServerSession
}

func newGated(t *testing.T) *gatedServer {
	g := &gatedServer{gate: make(chan struct{}), stop: make(chan struct{})}
	t.Cleanup(func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, ss := range g.sessions {
			ss.Close()
		}
	})
	return g
}

func (g *gatedServer) transport(string, config.Server) (mcp.Transport, error) {
	g.mu.Lock()
	n := len(g.sessions)
	g.mu.Unlock()
	if n > 0 {
		select {
		case <-g.gate:
		case <-g.stop:
			return nil, errors.New("stopped")
		}
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := fakemcp.NewServer().Connect(context.Background(), st, nil)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.sessions = append(g.sessions, ss)
	g.mu.Unlock()
	return ct, nil
}

// drop ends the first connection from the server's side.
func (g *gatedServer) drop(t *testing.T, h *harness) {
	t.Helper()
	g.mu.Lock()
	ss := g.sessions[0]
	g.mu.Unlock()
	ss.Close()
	h.waitFor("the server to be restarting", func(st ServerStatus) bool { return st.State == StateRestarting })
}

func (h *harness) waitFor(what string, cond func(ServerStatus) bool) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.m.WaitFor(ctx, func(ss []ServerStatus) bool { return cond(ss[0]) }); err != nil {
		h.t.Fatalf("waiting for %s: %v; status %+v", what, err, h.m.Status())
	}
}

func TestCallsWaitForARestart(t *testing.T) {
	mem := config.Server{Transport: config.TransportStdio, Command: "unused"}
	async := func(h *harness, in tools.Input) <-chan *tools.Result {
		ch := make(chan *tools.Result, 1)
		go func() { ch <- h.exec(in) }()
		return ch
	}
	echo := tools.Input{Name: "mcp__mem__echo", Arguments: map[string]any{"text": "x"}}

	t.Run("the call proceeds once the server is back", func(t *testing.T) {
		g := newGated(t)
		h := start(t, map[string]config.Server{"mem": mem}, Options{Transport: g.transport})
		g.drop(t, h)
		res := async(h, echo)
		h.waitFor("the call to wait", func(st ServerStatus) bool { return st.Waiting == 1 })
		close(g.gate)
		wantOK(t, <-res)
		if st := h.m.Status()[0]; st.Connects != 2 || st.Waiting != 0 {
			t.Errorf("status: got %+v, want 2 connects and no call waiting", st)
		}
	})

	t.Run("the call's deadline passes while it waits: TIMEOUT", func(t *testing.T) {
		g := newGated(t)
		h := start(t, map[string]config.Server{"mem": mem}, Options{Transport: g.transport})
		defer close(g.gate)
		g.drop(t, h)
		h.waitFor("the next attempt to start", func(st ServerStatus) bool { return st.Failures == 1 })
		in := echo
		in.Timeout = 200 * time.Millisecond
		wantCode(t, h.exec(in), errs.CodeTimeout)
	})

	t.Run("the server is not back within ReconnectWait: UPSTREAM_UNAVAILABLE", func(t *testing.T) {
		g := newGated(t)
		h := start(t, map[string]config.Server{"mem": mem}, Options{Transport: g.transport, ReconnectWait: 100 * time.Millisecond})
		defer close(g.gate)
		g.drop(t, h)
		res := h.exec(echo)
		wantCode(t, res, errs.CodeUpstreamUnavailable)
		wantMessage(t, res, `"mem"`, "restarting", "connection lost", "not back within 100ms")
	})

	t.Run("the next attempt is after the wait would end: UPSTREAM_UNAVAILABLE at once", func(t *testing.T) {
		g := newGated(t)
		h := start(t, map[string]config.Server{"mem": mem}, Options{Transport: g.transport, MinBackoff: time.Hour, MaxBackoff: time.Hour})
		g.drop(t, h)
		start := time.Now()
		res := h.exec(echo)
		wantCode(t, res, errs.CodeUpstreamUnavailable)
		wantMessage(t, res, "next attempt is in")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the call took %v, want a prompt failure", d)
		}
	})

	t.Run("waiting is off: UPSTREAM_UNAVAILABLE at once", func(t *testing.T) {
		g := newGated(t)
		h := start(t, map[string]config.Server{"mem": mem}, Options{Transport: g.transport, ReconnectWait: -1})
		defer close(g.gate)
		g.drop(t, h)
		wantCode(t, h.exec(echo), errs.CodeUpstreamUnavailable)
	})

	t.Run("the manager closes: a waiting call fails at once", func(t *testing.T) {
		g := newGated(t)
		h := start(t, map[string]config.Server{"mem": mem}, Options{Transport: g.transport})
		g.drop(t, h)
		res := async(h, echo)
		h.waitFor("the call to wait", func(st ServerStatus) bool { return st.Waiting == 1 })
		closed := make(chan struct{})
		go func() {
			h.m.Close()
			close(closed)
		}()
		// The call fails while run is still stuck in its connection
		// attempt, so before Close returns.
		r := <-res
		wantCode(t, r, errs.CodeUpstreamUnavailable)
		wantMessage(t, r, "closed")
		close(g.stop)
		<-closed
	})
}

// With a real child that dies on a call: the call in flight fails (it may
// have had effects), the next one waits for the restart.
func TestCallAfterACrashWaitsForTheRestart(t *testing.T) {
	h := start(t, map[string]config.Server{"fake": fakeServer(fakemcp.EnvCrashAfter + "=2")}, Options{MinBackoff: 300 * time.Millisecond})
	wantOK(t, h.echo("fake", "first", "x"))
	wantCode(t, h.echo("fake", "crash", "x"), errs.CodeUpstreamUnavailable)
	res := h.echo("fake", "after", "x")
	wantOK(t, res)
	jsonEqual(t, "echo after the restart", res.Value, []byte(`{"text":"x","meta":{"codemode/callId":"after","codemode/rootCallId":"after"}}`))
	if st := h.m.Status()[0]; st.Connects != 2 {
		t.Errorf("status: got %+v, want 2 connects", st)
	}
}
