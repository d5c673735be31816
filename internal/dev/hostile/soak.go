package hostile

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/runtime"
)

// NormalPrograms are the ordinary half of the soak's mix.
var NormalPrograms = []string{
	`const r = await Promise.all(['A', 'B', 'C'].map(s => tools.mcp__fake__ticker({ symbol: s }))); return r.map(x => x.price)`,
	`let s = 0; for (let i = 0; i < 1e5; i++) s += i; return s`,
	`const xs = Array.from({ length: 1000 }, (_, i) => ({ i, s: 'v' + i })); return JSON.stringify(xs).length`,
	`console.log('hello'); return (await tools.mcp__fake__echo({ text: 'hi' })).text`,
}

// SoakOptions configure [Soak].
type SoakOptions struct {
	Exe          string
	Dir          string
	Engines      []string // a server per engine; default goja, wazero
	Memory       int64
	Timeout      time.Duration
	Duration     time.Duration
	Sessions     int     // worker sessions in all, spread over the servers; default 4
	HostileShare float64 // share of hostile programs; default 0.3
	Log          io.Writer
}

// SoakReport is what a soak measured, per server.
type SoakReport struct {
	Header   Header        `json:"header"`
	Duration float64       `json:"durationSeconds"`
	Servers  []*SoakServer `json:"servers"`
}

// SoakServer is one engine's server over the soak.
type SoakServer struct {
	Engine      string         `json:"engine"`
	Sessions    int            `json:"sessions"`
	BaselineRSS int64          `json:"baselineRSS"`
	MaxRSS      int64          `json:"maxRSS"`
	FirstRSS    int64          `json:"firstWindowMeanRSS"`
	LastRSS     int64          `json:"lastWindowMeanRSS"`
	Window      float64        `json:"windowSeconds"`
	RSS         []int64        `json:"rssEverySecond"`
	Crashed     bool           `json:"crashed"`
	Crash       string         `json:"crash,omitempty"`
	Runs        int            `json:"runs"`
	Hostile     int            `json:"hostileRuns"`
	Codes       map[string]int `json:"codes"`
	NormalFails int            `json:"normalFailures"` // normal programs that did not answer OK
	FirstFail   string         `json:"firstNormalFailure,omitempty"`
	CanaryRuns  int            `json:"canaryRuns"`
	CanaryErrs  int            `json:"canaryErrors"`
	CanaryErr   string         `json:"firstCanaryError,omitempty"`
	CanaryP50   float64        `json:"canaryP50Ms"`
	CanaryP99   float64        `json:"canaryP99Ms"`
	CanaryMax   float64        `json:"canaryMaxMs"`
}

// Crashed reports whether a server died.
func (r *SoakReport) Crashed() bool {
	for _, s := range r.Servers {
		if s.Crashed {
			return true
		}
	}
	return false
}

// Soak runs a server per engine over HTTP, Sessions worker sessions
// running a mix of hostile and normal programs back to back, and a canary
// session per server running CanaryProgram every 100 ms; it samples each
// server's RSS every second.
func Soak(ctx context.Context, o SoakOptions) (*SoakReport, error) {
	if len(o.Engines) == 0 {
		o.Engines = runtime.Engines()
	}
	if o.Memory == 0 {
		o.Memory = 64 << 20
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	if o.Sessions == 0 {
		o.Sessions = 4
	}
	if o.HostileShare == 0 {
		o.HostileShare = 0.3
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	all, err := Cases()
	if err != nil {
		return nil, err
	}
	var hostiles []Case
	for _, c := range all {
		if !c.NoSoak && c.Runs == 1 && c.Mode == "" && c.Config == nil && c.Server == nil {
			hostiles = append(hostiles, c)
		}
	}
	st := &settings{exe: o.Exe, dir: o.Dir, memory: o.Memory, timeout: o.Timeout, resultBytes: 512 << 10}
	rep := &SoakReport{}
	var servers []*server
	defer func() {
		for _, s := range servers {
			s.close()
		}
	}()
	for _, engine := range o.Engines {
		cfg, err := st.writeConfig("soak-"+engine, engine, nil)
		if err != nil {
			return nil, err
		}
		srv, err := startServer(ctx, o.Exe, cfg, HTTP)
		if err != nil {
			return nil, err
		}
		servers = append(servers, srv)
		rep.Servers = append(rep.Servers, &SoakServer{Engine: engine, Codes: map[string]int{}})
	}
	ctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	// Canaries and RSS samplers, one per server.
	canaries := make([]*canary, len(servers))
	for i, srv := range servers {
		cs, err := srv.session(ctx)
		if err != nil {
			return nil, fmt.Errorf("canary session: %w", err)
		}
		if a := codeRun(ctx, cs, srv.sink, `return 1`, 30*time.Second); a.Code != "OK" {
			return nil, fmt.Errorf("warm-up: %s %s", a.Code, a.Err)
		}
		rep.Servers[i].BaselineRSS, _, _ = status(srv.pid)
		canaries[i] = startCanary(context.WithoutCancel(ctx), cs, srv.sink)
		wg.Add(1)
		go func(i int, srv *server) {
			defer wg.Done()
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				ss := rep.Servers[i]
				rss, _, err := status(srv.pid)
				mu.Lock()
				if err != nil || !srv.alive() {
					if !ss.Crashed {
						ss.Crashed, ss.Crash = true, srv.crashed()
						fmt.Fprintf(o.Log, "soak: the %s server died at %s: %s\n", ss.Engine, time.Since(start).Round(time.Second), ss.Crash)
					}
				} else {
					ss.RSS = append(ss.RSS, rss)
				}
				mu.Unlock()
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}(i, srv)
	}
	// Workers.
	for w := range o.Sessions {
		i := w % len(servers)
		srv := servers[i]
		sess, err := srv.session(ctx)
		if err != nil {
			return nil, fmt.Errorf("worker session: %w", err)
		}
		rep.Servers[i].Sessions++
		wg.Add(1)
		go func(i int, srv *server, sess *mcp.ClientSession, seed uint64) {
			defer wg.Done()
			rnd := rand.New(rand.NewPCG(seed, 18))
			for ctx.Err() == nil {
				prog, isHostile := NormalPrograms[rnd.IntN(len(NormalPrograms))], false
				if rnd.Float64() < o.HostileShare {
					c := hostiles[rnd.IntN(len(hostiles))]
					prog, isHostile = c.Program, true
				}
				a := codeRun(context.WithoutCancel(ctx), sess, srv.sink, prog, o.Timeout+60*time.Second)
				mu.Lock()
				ss := rep.Servers[i]
				ss.Runs++
				ss.Codes[a.Code]++
				if isHostile {
					ss.Hostile++
				} else if a.Code != "OK" {
					ss.NormalFails++
					if ss.FirstFail == "" {
						ss.FirstFail = fmt.Sprintf("at %s: %s %s", time.Since(start).Round(time.Second), a.Code, cut(a.Err, 120))
					}
				}
				mu.Unlock()
			}
		}(i, srv, sess, uint64(w+1))
	}
	// Progress, once a minute.
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				mu.Lock()
				for _, ss := range rep.Servers {
					rss := int64(0)
					if len(ss.RSS) > 0 {
						rss = ss.RSS[len(ss.RSS)-1]
					}
					fmt.Fprintf(o.Log, "soak %s: %s, %d runs, RSS %s\n", time.Since(start).Round(time.Second), ss.Engine, ss.Runs, sizeStr(rss))
				}
				mu.Unlock()
			}
		}
	}()
	<-ctx.Done()
	wg.Wait()
	rep.Duration = time.Since(start).Seconds()
	for i, ss := range rep.Servers {
		samples := canaries[i].end()
		var lat []float64
		for _, s := range samples {
			ss.CanaryRuns++
			lat = append(lat, float64(s.end.Sub(s.start).Microseconds())/1000)
			if s.code != "OK" {
				ss.CanaryErrs++
				if ss.CanaryErr == "" {
					ss.CanaryErr = fmt.Sprintf("at %s: %s %s", s.start.Sub(start).Round(time.Second), s.code, cut(s.err, 120))
				}
			}
		}
		ss.CanaryP50, ss.CanaryP99 = percentile(lat, 50), percentile(lat, 99)
		sort.Float64s(lat)
		if len(lat) > 0 {
			ss.CanaryMax = lat[len(lat)-1]
		}
		win := min(60, max(1, len(ss.RSS)/4))
		ss.Window = float64(win)
		for _, r := range ss.RSS {
			ss.MaxRSS = max(ss.MaxRSS, r)
		}
		if len(ss.RSS) > 0 {
			ss.FirstRSS = mean(ss.RSS[:min(win, len(ss.RSS))])
			ss.LastRSS = mean(ss.RSS[max(0, len(ss.RSS)-win):])
		}
		if !ss.Crashed && !servers[i].alive() {
			ss.Crashed, ss.Crash = true, servers[i].crashed()
		}
	}
	return rep, nil
}

func mean(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s / int64(len(xs))
}

// WriteJSON writes the report as indented JSON.
func (r *SoakReport) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// WriteMarkdown writes the soak's figures.
func (r *SoakReport) WriteMarkdown(w io.Writer) {
	h := r.Header
	fmt.Fprintf(w, "# Soak\n\n*Measured %s on %s, commit %s, with:*\n\n    %s\n\n", h.Date, h.Machine, h.Commit, h.Command)
	fmt.Fprintf(w, "%.0f s over HTTP, `memory` %s, `timeout` %s; RSS sampled every second.\n\n", r.Duration, sizeStr(h.Memory), h.Timeout)
	fmt.Fprintf(w, "| engine | sessions | runs (hostile) | normal failures | crashed | RSS idle | RSS max | RSS first → last window | canary runs | canary errors | canary p50 | canary p99 | canary max |\n")
	fmt.Fprintf(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range r.Servers {
		crash := "no"
		if s.Crashed {
			crash = "**yes**: " + mdEscape(s.Crash)
		}
		fmt.Fprintf(w, "| %s | %d | %d (%d) | %d | %s | %s | %s | %s → %s (%.0f s) | %d | %d | %.1f ms | %.1f ms | %.0f ms |\n",
			s.Engine, s.Sessions, s.Runs, s.Hostile, s.NormalFails, crash, sizeStr(s.BaselineRSS), sizeStr(s.MaxRSS),
			sizeStr(s.FirstRSS), sizeStr(s.LastRSS), s.Window, s.CanaryRuns, s.CanaryErrs, s.CanaryP50, s.CanaryP99, s.CanaryMax)
	}
	fmt.Fprintln(w)
	for _, s := range r.Servers {
		var codes []string
		for c, n := range s.Codes {
			codes = append(codes, fmt.Sprintf("%s %d", c, n))
		}
		sort.Strings(codes)
		fmt.Fprintf(w, "- %s codes: %s\n", s.Engine, strings.Join(codes, ", "))
		if s.FirstFail != "" {
			fmt.Fprintf(w, "  - first normal failure %s\n", mdEscape(s.FirstFail))
		}
		if s.CanaryErr != "" {
			fmt.Fprintf(w, "  - first canary error %s\n", mdEscape(s.CanaryErr))
		}
	}
}
