package runview_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/internal/runview"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// setup mounts code mode on goja with the viewer and two tools: "get"
// echoes its arguments, and "wait" blocks until release is closed.
func setup(t *testing.T, opts runview.Options) (*runview.Viewer, func(code string) *tools.Result, chan struct{}) {
	t.Helper()
	v := runview.New(opts)
	reg := tools.New(tools.Options{})
	t.Cleanup(reg.Use(v.Middleware()))
	release := make(chan struct{})
	for _, tl := range []tools.Tool{
		{Name: "mcp__fake__get", Handler: func(_ context.Context, e *tools.Execution) (*tools.Result, error) {
			return &tools.Result{Value: e.Arguments()}, nil
		}},
		{Name: "mcp__fake__wait", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return tools.TextResult("released"), nil
		}},
	} {
		if _, err := reg.Register(tools.GlobalLayer(), tl); err != nil {
			t.Fatal(err)
		}
	}
	host := scope.NewHost("host")
	t.Cleanup(func() { host.Dispose() })
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{Engine: runtime.EngineGoja, Observers: []codemode.RunObserver{v.Observer()}}); err != nil {
		t.Fatal(err)
	}
	agent, err := reg.NewAgent(preset, "a1")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var mu sync.Mutex
	run := func(code string) *tools.Result {
		mu.Lock()
		n++
		id := "mcp_" + string(rune('0'+n))
		mu.Unlock()
		return reg.Execute(context.Background(), tools.Input{CallID: id, Name: codemode.ToolCodeRun, Arguments: map[string]any{"code": code}, Agent: agent, Timeout: 30 * time.Second})
	}
	return v, run, release
}

func TestFinishedAndFailingRuns(t *testing.T) {
	v, run, _ := setup(t, runview.Options{MaxBytes: 64})
	run(`const a = await tools.mcp__fake__get({ q: 1, password: "hunter2" });
console.log("got", a.q);
await tools.mcp__fake__get({ long: "` + strings.Repeat("x", 200) + `" });
return { a };`)
	run(`console.log("start");
const x = await tools.mcp__fake__get({ n: 2 });
null.boom;
return x;`)
	runs := v.List()
	if len(runs) != 2 || runs[0].ID != "2" || runs[1].ID != "1" {
		t.Fatalf("list: got %+v, want runs 2 and 1, newest first", runs)
	}
	if runs[0].Code != "" || runs[0].Calls != nil {
		t.Errorf("the list carries code or calls: %+v", runs[0])
	}
	ok, _ := v.Get("1")
	if ok.Status != "ok" || ok.CallCount != 2 || len(ok.Calls) != 2 || !ok.Fresh || ok.Engine != "goja" || ok.Agent != "a1" {
		t.Errorf("run 1: got %+v", ok)
	}
	if c := ok.Calls[0]; c.ID != "mcp_1:ptc:1" || c.Name != "mcp__fake__get" || c.Status != "ok" || strings.Contains(c.Arguments, "hunter2") || !strings.Contains(c.Arguments, redact.Marker) {
		t.Errorf("call 1: got %+v, want its password redacted", c)
	}
	if c := ok.Calls[1]; !strings.Contains(c.Arguments, "[cut:") || len(c.Arguments) > 64+40 {
		t.Errorf("call 2's arguments are not cut to 64 bytes: %q", c.Arguments)
	}
	if len(ok.Logs) != 1 || ok.Logs[0].Text != "got 1" {
		t.Errorf("logs: %+v", ok.Logs)
	}
	if strings.Contains(ok.Value, "hunter2") {
		t.Errorf("the value is not redacted: %s", ok.Value)
	}
	bad, _ := v.Get("2")
	if bad.Status != "error" || bad.Error == nil || bad.Error.Code != "RUNTIME_ERROR" || bad.Error.Line != 3 {
		t.Errorf("run 2: got status %q error %+v, want RUNTIME_ERROR at line 3", bad.Status, bad.Error)
	}
	if len(bad.Calls) != 1 || bad.Calls[0].Status != "ok" {
		t.Errorf("run 2's calls: %+v", bad.Calls)
	}
}

// A run's arguments, results and console text share one budget.
func TestRunBudget(t *testing.T) {
	v, run, _ := setup(t, runview.Options{MaxBytes: 1000, MaxRunBytes: 2500})
	run(`for (let i = 0; i < 5; i++) await tools.mcp__fake__get({ s: "x".repeat(900) });`)
	r, _ := v.Get("1")
	kept := 0
	for _, c := range r.Calls {
		if c.Arguments != "[not kept: this run's viewer budget is spent]" {
			kept++
		}
	}
	if len(r.Calls) != 5 || kept == 0 || kept > 2 {
		t.Errorf("%d calls, %d with their arguments kept; want 5 calls, the first one or two kept", len(r.Calls), kept)
	}
}

func TestRingBounded(t *testing.T) {
	v, run, _ := setup(t, runview.Options{Runs: 3})
	for range 5 {
		run(`return 1`)
	}
	runs := v.List()
	if len(runs) != 3 || runs[0].ID != "5" || runs[2].ID != "3" {
		t.Errorf("got %d runs (%+v), want 5, 4, 3", len(runs), runs)
	}
	if _, ok := v.Get("1"); ok {
		t.Error("run 1 is still kept")
	}
}

// A run in progress is visible, with its call running, before it ends.
func TestLive(t *testing.T) {
	v, run, release := setup(t, runview.Options{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		run(`console.log("waiting"); await tools.mcp__fake__wait({}); return 1;`)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, ok := v.Get("1")
		if ok && len(r.Calls) == 1 {
			if r.Status != "running" || r.Calls[0].Status != "running" || len(r.Logs) != 1 {
				t.Errorf("in progress: got %+v", r)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run's nested call never showed up")
		}
		time.Sleep(5 * time.Millisecond) // polling the state, as the page does
	}
	close(release)
	<-done
	r, _ := v.Get("1")
	if r.Status != "ok" || r.Calls[0].Status != "ok" || r.Calls[0].Result != "released" {
		t.Errorf("after: got %+v", r)
	}
}

func TestHandler(t *testing.T) {
	v, run, _ := setup(t, runview.Options{})
	run(`return 1`)
	h := v.Handler()
	get := func(path, remote string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.RemoteAddr = remote
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	page := get("/runs", "127.0.0.1:5000")
	if page.Code != 200 || !strings.Contains(page.Body.String(), "<script>") || strings.Contains(page.Body.String(), "/*SCRIPT*/") {
		t.Fatalf("page: %d", page.Code)
	}
	csp := page.Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "script-src 'sha256-") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
	for _, s := range []string{"http://", "https://", "//cdn"} {
		if strings.Contains(strings.ReplaceAll(page.Body.String(), "http://www.w3.org", ""), s) {
			t.Errorf("the page names an external address (%s)", s)
		}
	}
	var list struct{ Runs []runview.Run }
	if rec := get("/runs/api/runs", "[::1]:5000"); rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &list) != nil || len(list.Runs) != 1 {
		t.Errorf("list: %d %s", rec.Code, rec.Body)
	}
	var one runview.Run
	if rec := get("/runs/api/runs/1", "127.0.0.1:1"); rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &one) != nil || one.Code != "return 1" {
		t.Errorf("run 1: %d %s", rec.Code, rec.Body)
	}
	if rec := get("/runs/api/runs/9", "127.0.0.1:1"); rec.Code != 404 {
		t.Errorf("run 9: %d, want 404", rec.Code)
	}
	if rec := get("/runs", "192.0.2.7:5000"); rec.Code != 403 {
		t.Errorf("a non-loopback client got %d, want 403", rec.Code)
	}
}
