package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/internal/edge/front"
	"github.com/codemode/codemode/internal/edge/httpfence"
	"github.com/codemode/codemode/internal/edge/upstream"
)

// httpRoutes are what `serve --listen` serves beside /mcp, behind the same
// fence: health for load balancers, metrics (when on) and the run viewer
// (unless --no-ui).
func httpRoutes(a *app, srv *front.Server) map[string]http.Handler {
	routes := map[string]http.Handler{
		"GET /healthz": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			fmt.Fprintln(w, "ok")
		}),
		"GET /readyz": readyz(a, srv),
	}
	if a.obs.tel.Metrics() {
		routes["GET /metrics"] = a.obs.tel.MetricsHandler()
	}
	if v := a.obs.viewer; v != nil {
		h := v.Handler()
		routes["/runs"], routes["/runs/"] = h, h
	}
	return routes
}

// readiness is /readyz's answer.
type readiness struct {
	Ready     bool              `json:"ready"`
	Draining  bool              `json:"draining"`
	PoolWarm  bool              `json:"poolWarm"`
	Upstreams map[string]string `json:"upstreams"`
}

// readyz answers 200 when every upstream server is connected, the engine's
// pool has been warm, and the server is not draining; else 503. The pool
// counts once it has been warm: a busy server empties it for a moment, and
// a load balancer must not take that for a fault.
func readyz(a *app, srv *front.Server) http.Handler {
	var warmed atomic.Bool
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r := readiness{Draining: srv.Draining(), Upstreams: map[string]string{}}
		if !warmed.Load() {
			n, ok := a.plugin.Runtime().Warm()
			warmed.Store(!ok || n > 0)
		}
		r.PoolWarm = warmed.Load()
		connected := true
		for _, s := range a.upstream.Status() {
			r.Upstreams[s.Name] = string(s.State)
			connected = connected && s.State == upstream.StateReady
		}
		r.Ready = connected && r.PoolWarm && !r.Draining
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if !r.Ready {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(r)
	})
}

// serveMetrics serves /metrics on its own listener (serve --metrics ADDR),
// fenced like the front: a loopback address unless a bearer token is
// configured. It returns the bound address and a stop function.
func serveMetrics(addr string, h http.Handler, token string) (string, func(), error) {
	fence := httpfence.Config{Listen: addr, BearerToken: token}
	if err := httpfence.Check(fence); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	fence.Listen = ln.Addr().String()
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	fenced, err := httpfence.Wrap(mux, fence)
	if err != nil {
		ln.Close()
		return "", nil, err
	}
	hs := &http.Server{Handler: fenced, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return ln.Addr().String(), func() { hs.Close() }, nil
}
