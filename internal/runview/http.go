package runview

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"strings"
)

//go:embed page.html
var pageTemplate string

//go:embed page.css
var pageCSS string

//go:embed page.js
var pageJS string

// page is the viewer: one HTML document with its style and script inline,
// and csp the Content-Security-Policy that allows exactly those (by hash)
// and requests to this origin: the page makes no other request.
var page, csp = buildPage()

func buildPage() (string, string) {
	html := strings.Replace(pageTemplate, "/*STYLE*/", pageCSS, 1)
	html = strings.Replace(html, "/*SCRIPT*/", pageJS, 1)
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	policy := "default-src 'none'; script-src " + hash(pageJS) + "; style-src " + hash(pageCSS) +
		"; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return html, policy
}

// Handler serves the viewer under /runs: the page at /runs, the list of
// runs at /runs/api/runs and one run at /runs/api/runs/{id} (JSON). Only
// clients on a loopback address are answered (the arguments and results
// it shows are an agent's data): anything else gets 403. Mount it at
// "/runs" and "/runs/", behind the HTTP fence.
func (v *Viewer) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /runs", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", csp)
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		_, _ = w.Write([]byte(page))
	})
	mux.HandleFunc("GET /runs/api/runs", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"runs": v.List()})
	})
	mux.HandleFunc("GET /runs/api/runs/{id}", func(w http.ResponseWriter, r *http.Request) {
		run, ok := v.Get(r.PathValue("id"))
		if !ok {
			http.Error(w, "no such run (the ring keeps the most recent ones)", http.StatusNotFound)
			return
		}
		writeJSON(w, run)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopback(r.RemoteAddr) {
			http.Error(w, "Forbidden: the run viewer answers loopback clients only", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	_ = json.NewEncoder(w).Encode(v)
}

// loopback reports whether a request's remote address is a loopback one.
func loopback(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
