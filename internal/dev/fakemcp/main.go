package fakemcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/edge/httpfence"
	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// Environment variables read by [Main].
const (
	// EnvEvents names a file to which every [Event] is appended as one JSON
	// line. The file is created if needed and never truncated, so several
	// runs (a restarted upstream, say) accumulate in it.
	EnvEvents = "FAKEMCP_EVENTS"
	// EnvCrashAfter, set to n ≥ 1, makes the process exit with status 3 as
	// the n-th tool call arrives, without answering it. The call's EventCall
	// is written to EnvEvents first.
	EnvCrashAfter = "FAKEMCP_CRASH_AFTER"
)

// Exit statuses of [Main].
const (
	ExitOK      = 0 // the client closed the session, or ctx was cancelled
	ExitError   = 1 // the session failed
	ExitUsage   = 2 // a bad environment variable, option or fixture
	ExitCrashed = 3 // FAKEMCP_CRASH_AFTER fired
)

// MainOptions says what [MainWith] serves. The zero value is [Main]: the
// built-in fake on stdin and stdout.
type MainOptions struct {
	// Fixture is the path of a recording to serve instead of the
	// built-in fake.
	Fixture string
	// Match and Latency are the fixture server's [Options.Match] and
	// [Options.Latency].
	Match   fixture.Rule
	Latency Latency
	// Listen, if set, is a host:port at which to serve streamable HTTP
	// (path /mcp, behind internal/edge/httpfence: loopback names only) instead
	// of stdio; port 0 picks one. The address is announced on stderr as
	// "fakemcp: serving MCP at http://ADDR/mcp". Sessions share the
	// server, and so one fixture matcher.
	Listen string
}

// Main serves the built-in fake on stdin and stdout; see [MainWith].
func Main(ctx context.Context, stdin, stdout *os.File, stderr io.Writer) int {
	return MainWith(ctx, stdin, stdout, stderr, MainOptions{})
}

// MainWith serves the built-in fake, or mo.Fixture, on stdin and stdout
// until the client goes away or ctx is cancelled (or over HTTP with
// mo.Listen, until ctx is cancelled), and returns the process exit status.
// stdout carries only protocol frames; diagnostics go to stderr.
//
// On stdio, MainWith moves stdin and stdout onto the netpoller with
// [stdiox.Pipes] when they are pipes; afterwards the caller must not use
// them. It reads [EnvEvents] and [EnvCrashAfter] from the environment, and
// may call [os.Exit] itself when the latter fires.
func MainWith(ctx context.Context, stdin, stdout *os.File, stderr io.Writer, mo MainOptions) int {
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "fakemcp: "+format+"\n", args...)
	}
	opts := Options{Log: stderr, Match: mo.Match, Latency: mo.Latency}
	var sinks []func(Event)
	if path := os.Getenv(EnvEvents); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			logf("%s: %v", EnvEvents, err)
			return ExitUsage
		}
		defer f.Close()
		sinks = append(sinks, eventWriter(f, logf))
	}
	if s := os.Getenv(EnvCrashAfter); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			logf("%s=%q: want a whole number ≥ 1", EnvCrashAfter, s)
			return ExitUsage
		}
		sinks = append(sinks, func(ev Event) {
			if ev.Kind == EventCall && ev.Seq == n {
				logf("crashing on tool call %d (%s=%d)", n, EnvCrashAfter, n)
				os.Exit(ExitCrashed)
			}
		})
	}
	if len(sinks) > 0 {
		opts.OnEvent = func(ev Event) {
			for _, sink := range sinks {
				sink(ev)
			}
		}
	}

	var srv *mcp.Server
	if mo.Fixture == "" {
		srv = NewServerWith(opts)
	} else {
		fx, err := fixture.ReadFile(mo.Fixture)
		if err != nil {
			logf("%v", err)
			return ExitUsage
		}
		if srv, err = NewFixtureServer(fx, opts); err != nil {
			logf("fixture %s: %v", mo.Fixture, err)
			return ExitUsage
		}
	}
	if mo.Listen != "" {
		return serveHTTP(ctx, srv, mo.Listen, logf)
	}

	r, w, polled, err := stdiox.Pipes(stdin, stdout)
	if err != nil {
		logf("%v", err)
		return ExitError
	}
	// The transport closes both when the session ends; these cover an
	// early return. A second Close is harmless.
	defer r.Close()
	defer w.Close()
	if !polled {
		logf("stdin and stdout are not both pipes; using blocking I/O, which can stall (docs/contract.md#stdio)")
	}
	err = srv.Run(ctx, stdiox.Transport(r, w))
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		logf("%v", err)
		return ExitError
	}
	return ExitOK
}

// serveHTTP serves srv over streamable HTTP at listen until ctx ends.
func serveHTTP(ctx context.Context, srv *mcp.Server, listen string, logf func(string, ...any)) int {
	if err := httpfence.Check(httpfence.Config{Listen: listen}); err != nil {
		logf("--listen: %v", err)
		return ExitUsage
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		logf("%v", err)
		return ExitUsage
	}
	h, err := httpfence.Wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil),
		httpfence.Config{Listen: ln.Addr().String()})
	if err != nil {
		ln.Close()
		logf("%v", err)
		return ExitUsage
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logf("serving MCP at http://%s/mcp", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		<-errc
		return ExitOK
	case err := <-errc:
		logf("%v", err)
		return ExitError
	}
}

// eventWriter returns a sink that appends each event to w as one JSON line.
// One Write per line, under a lock, so lines never interleave.
func eventWriter(w io.Writer, logf func(string, ...any)) func(Event) {
	var mu sync.Mutex
	return func(ev Event) {
		line, err := json.Marshal(ev)
		if err != nil {
			logf("encoding event: %v", err)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if _, err := w.Write(append(line, '\n')); err != nil {
			logf("%s: %v", EnvEvents, err)
		}
	}
}
