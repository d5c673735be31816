package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	goruntime "runtime"
	"strings"
	"time"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/edge/front"
	"github.com/codemode/codemode/internal/edge/httpfence"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/tools"
)

// defaultDrainTimeout bounds a graceful shutdown when neither
// --drain-timeout nor codemode.drainTimeout says otherwise.
const defaultDrainTimeout = 30 * time.Second

func cmdServe(ctx context.Context, env *cliEnv, args []string) int {
	var cf commonFlags
	var ff fixtureFlags
	var listen, replica, metricsAddr string
	var stateless, noUI bool
	var drainTimeout time.Duration
	fs := newFlags(env, "serve", "[flags]")
	cf.register(fs)
	ff.register(fs)
	fs.StringVar(&listen, "listen", "", "serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8080)")
	fs.BoolVar(&stateless, "stateless", false, "HTTP: serve every request with a session of its own (no Mcp-Session-Id), so any replica of a fleet answers any request; per-call mode only (overrides the config)")
	fs.StringVar(&replica, "replica", "", "HTTP: the `name` session ids start with (\"NAME.<random>\"), for a load balancer to route on (default: host name and listen port; overrides the config)")
	fs.StringVar(&metricsAddr, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics on a listener of their own, loopback (e.g. 127.0.0.1:9464); switches metrics on (with --listen they are also at /metrics there)")
	fs.BoolVar(&noUI, "no-ui", false, "HTTP: do not record runs nor serve the run viewer at /runs")
	fs.DurationVar(&drainTimeout, "drain-timeout", 0, "on SIGTERM or interrupt: how long running calls may take to finish before the server exits (default 30s; overrides the config)")
	if code, ok := parseFlags(env, fs, args); !ok {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.stderr, "codemode serve: "+format+"\n", a...)
		return exitUsage
	}
	cfg, src, err := cf.loadConfig()
	if err != nil {
		return usageErr("config: %v", err)
	}
	cm := &cfg.CodeMode
	if listen == "" {
		listen = cm.Listen
	}
	if stateless {
		cm.Stateless = true
	}
	if replica != "" {
		cm.Replica = replica
	}
	if metricsAddr != "" {
		cm.Telemetry.Metrics = true
	}
	if drainTimeout < 0 {
		return usageErr("--drain-timeout: must be positive")
	}
	if drainTimeout > 0 {
		cm.DrainTimeout = drainTimeout
	}
	if cm.DrainTimeout == 0 {
		cm.DrainTimeout = defaultDrainTimeout
	}
	if cm.Stateless && listen == "" {
		return usageErr("--stateless (codemode.stateless) is for the HTTP front: add --listen ADDR")
	}
	if cm.Stateless && runtime.Mode(cm.Mode) == runtime.ModePersistent {
		return usageErr("--stateless (codemode.stateless) cannot serve mode %q: every request would get a fresh session, and its environment would be gone by the next call. Use per-call mode, or serve stateful replicas with session affinity (docs/deploy.md)", cm.Mode)
	}
	if cm.Replica != "" && !front.ValidReplica(cm.Replica) {
		return usageErr("--replica (codemode.replica): %q must match %s", cm.Replica, front.ReplicaPattern)
	}

	var fence httpfence.Config
	var ln net.Listener
	if listen != "" {
		fence = httpfence.Config{Listen: listen, TrustedHosts: cm.TrustedHosts, BearerToken: cm.Token(nil)}
		if err := httpfence.Check(fence); err != nil {
			return usageErr("%v", err)
		}
		// Listen first: with port 0 the fence and the replica name must
		// know the port it got.
		if ln, err = net.Listen("tcp", listen); err != nil {
			return usageErr("%v", err)
		}
		defer ln.Close()
		fence.Listen = ln.Addr().String()
		if cm.Replica == "" {
			cm.Replica = defaultReplica(ln.Addr())
		}
	}

	log, sync := newLogger(env.stderr, cf.verbose)
	defer sync()
	log.Info("codemode serve", "config", src)
	warnDemo(log, src)
	// ctx ends at SIGTERM or interrupt, which starts the drain; start-up
	// alone is bounded by it.
	rec, err := ff.apply(cfg, log)
	if err != nil {
		return usageErr("%v", err)
	}
	var opts []appOption
	if ln != nil && !noUI {
		opts = append(opts, withRunViewer())
	}
	a, err := newRecordingApp(ctx, cfg, log, rec, opts...)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitUsage
	}
	defer a.Close()
	setGoMemoryLimit(a.plugin.Runtime().Governor(), log)
	if metricsAddr != "" {
		addr, stop, err := serveMetrics(metricsAddr, a.obs.tel.MetricsHandler(), cm.Token(nil))
		if err != nil {
			return usageErr("--metrics: %v", err)
		}
		defer stop()
		fmt.Fprintf(env.stderr, "codemode: metrics at http://%s/metrics\n", addr)
	}
	srv, err := front.New(ctx, front.Options{Registry: a.reg, Preset: a.preset, Logger: log, Replica: cm.Replica, CallContext: a.obs.callContext(),
		OnSession: func(agent *tools.Agent, ss *mcp.ServerSession) {
			id := ss.ID() // "" over stdio: the agent's id names the session
			if id == "" {
				id = agent.ID()
			}
			a.policy.Attach(agent, policy.MCPSession(ss, id))
		}})
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitFail
	}
	defer srv.Close()
	if ln == nil {
		in, ok1 := env.stdin.(*os.File)
		out, ok2 := env.stdout.(*os.File)
		if !ok1 || !ok2 {
			fmt.Fprintln(env.stderr, "codemode serve: stdin and stdout must be files or pipes")
			return exitUsage
		}
		stdioProcs(log)
		if err := srv.ServeStdio(ctx, in, out); err != nil && ctx.Err() == nil {
			log.Debug("codemode serve: session ended", "err", err)
		}
		if ctx.Err() != nil {
			drain(env, srv, cm.DrainTimeout)
		}
		return exitOK
	}
	return serveHTTP(ctx, env, srv, ln, front.HTTPOptions{Fence: fence, Stateless: cm.Stateless, Routes: httpRoutes(a, srv)}, cm)
}

func serveHTTP(ctx context.Context, env *cliEnv, srv *front.Server, ln net.Listener, opts front.HTTPOptions, cm *config.CodeMode) int {
	h, err := srv.HTTPHandler(opts)
	if err != nil {
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitUsage
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	shape := "sessions named " + cm.Replica + ".*"
	if cm.Stateless {
		shape = "stateless"
	}
	fmt.Fprintf(env.stderr, "codemode: replica %s (%s), drain timeout %s\n", cm.Replica, shape, cm.DrainTimeout)
	if _, ok := opts.Routes["/runs"]; ok {
		fmt.Fprintf(env.stderr, "codemode: run viewer at http://%s/runs\n", ln.Addr())
	}
	fmt.Fprintf(env.stderr, "codemode: serving MCP at http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(front.RawListener(ln)) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		fmt.Fprintf(env.stderr, "codemode serve: %v\n", err)
		return exitFail
	}
	// Stop accepting at once (Shutdown closes the listener and the idle
	// connections, then waits for the busy ones), let the sessions finish
	// what they run, then cut whatever is still open.
	shut := make(chan struct{})
	go func() {
		_ = hs.Shutdown(context.Background())
		close(shut)
	}()
	deadline := drain(env, srv, cm.DrainTimeout)
	select {
	case <-shut:
	case <-time.After(time.Until(deadline)):
		hs.Close()
		<-shut
	}
	return exitOK
}

// drain ends srv's sessions gracefully within timeout and says so on
// stderr. It returns the drain's deadline.
func drain(env *cliEnv, srv *front.Server, timeout time.Duration) time.Time {
	fmt.Fprintf(env.stderr, "codemode: shutting down: no new sessions; running calls have %s to finish\n", timeout)
	dctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	deadline, _ := dctx.Deadline()
	start := time.Now()
	if err := srv.Drain(dctx); errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(env.stderr, "codemode: drain timeout (%s): calls still running are cancelled\n", timeout)
		return deadline
	}
	fmt.Fprintf(env.stderr, "codemode: drained in %s; releasing environments\n", time.Since(start).Round(time.Millisecond))
	return deadline
}

// stdioProcs runs the process on one P (GOMAXPROCS=1) for a stdio
// session, unless GOMAXPROCS is set in the environment (the operator's
// word wins). One stdio session is one client's calls, mostly one at a
// time, and each request hands work from goroutine to goroutine (reader,
// handler, engine worker): with a second P idle, every hand-off wakes an
// OS thread that spins, finds nothing and sleeps again, which cost
// ~40% of serve's CPU per `return 1 + 1` (docs/benchmarks.md, "The stdio
// path on one P"; RATIONALE.md, "Why does serve over stdio run on one
// P, with raw system calls on its pipes?"). Concurrent calls still run
// concurrently, time-sliced on one core.
func stdioProcs(log *slog.Logger) {
	if v, ok := os.LookupEnv("GOMAXPROCS"); ok {
		log.Debug("stdio: GOMAXPROCS is set; left as it says", slog.String("GOMAXPROCS", v))
		return
	}
	goruntime.GOMAXPROCS(1)
	log.Debug("stdio: GOMAXPROCS=1")
}

// defaultReplica names a replica after its host and port: "host-8080".
func defaultReplica(addr net.Addr) string {
	port := "0"
	if ta, ok := addr.(*net.TCPAddr); ok {
		port = fmt.Sprint(ta.Port)
	}
	host, _ := os.Hostname()
	var b strings.Builder
	for _, r := range strings.ToLower(host) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if max := 62 - len(port); len(name) > max {
		name = strings.TrimRight(name[:max], "-")
	}
	if name == "" {
		name = "codemode"
	}
	return name + "-" + port
}
