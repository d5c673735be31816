package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
	"go.uber.org/goleak"
)

// beFake makes the test binary run the fake MCP server (re-exec), so the
// end-to-end tests go through real pipes to a real child process.
const beFake = "UPSTREAM_TEST_BE_FAKEMCP"

func TestMain(m *testing.M) {
	if os.Getenv(beFake) == "1" {
		os.Exit(fakemcp.Main(context.Background(), os.Stdin, os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}

// fakeServer is the config of the fake server child; env adds variables.
func fakeServer(env ...string) config.Server {
	e := map[string]string{beFake: "1"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		e[k] = v
	}
	return config.Server{Transport: config.TransportStdio, Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: e}
}

// logBuffer collects log records for assertions.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type harness struct {
	t   *testing.T
	reg *tools.Registry
	m   *Manager
	log *logBuffer
}

// start mounts servers into a fresh registry and closes the manager at
// the end of the test.
func start(t *testing.T, servers map[string]config.Server, opts Options) *harness {
	t.Helper()
	// The frame tests send up to 10 MB: above the registry's default argument limit.
	h := &harness{t: t, reg: tools.New(tools.Options{MaxArgumentBytes: 64 << 20}), log: &logBuffer{}}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff = 10 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := Start(ctx, h.reg, servers, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	h.m = m
	t.Cleanup(func() { m.Close() })
	return h
}

func (h *harness) exec(in tools.Input) *tools.Result {
	h.t.Helper()
	if in.Timeout == 0 {
		in.Timeout = 20 * time.Second
	}
	if in.CallID == "" {
		in.CallID = "call-1"
	}
	return h.reg.Execute(context.Background(), in)
}

func (h *harness) waitReady(name string, minConnects int) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := h.m.WaitFor(ctx, func(ss []ServerStatus) bool {
		for _, s := range ss {
			if s.Name == name {
				return s.State == StateReady && s.Connects >= minConnects
			}
		}
		return false
	})
	if err != nil {
		h.t.Fatalf("waiting for %s to be ready (connects ≥ %d): %v; status %+v", name, minConnects, err, h.m.Status())
	}
}

func wantOK(t *testing.T, res *tools.Result) {
	t.Helper()
	if res.IsError {
		t.Fatalf("got error result %v (%s), want success", res.Err.Code, res.Err.Message)
	}
}

func wantCode(t *testing.T, res *tools.Result, code errs.Code) {
	t.Helper()
	if !res.IsError || res.Err.Code != code {
		t.Fatalf("got result %+v (err %+v), want error %s", res, res.Err, code)
	}
}

func jsonEqual(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: got invalid JSON %s: %v", what, got, err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: want invalid JSON %s: %v", what, want, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\ngot  %s\nwant %s", what, got, want)
	}
}

func TestToolsRegistered(t *testing.T) {
	h := start(t, map[string]config.Server{"fake": fakeServer()}, Options{})

	// The fake's own definitions, as an in-memory client sees them.
	want := map[string]*mcp.Tool{}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := fakemcp.NewServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		want[tool.Name] = tool
	}
	if len(want) != 3 {
		t.Fatalf("the fake has %d tools, want 3", len(want))
	}

	for name, wt := range want {
		full := "mcp__fake__" + name
		// Every upstream tool is global: visibility is the preset's call.
		info, ok := h.reg.Get(full)
		if !ok {
			t.Errorf("%s: not registered in the global layer", full)
			continue
		}
		if info.Layer != tools.GlobalLayer() {
			t.Errorf("%s: got layer %v, want the global layer", full, info.Layer)
		}
		if info.Description != wt.Description {
			t.Errorf("%s: got description %q, want %q", full, info.Description, wt.Description)
		}
		in, _ := json.Marshal(wt.InputSchema)
		out, _ := json.Marshal(wt.OutputSchema)
		jsonEqual(t, full+" input schema", info.InputSchema, in)
		jsonEqual(t, full+" output schema", info.OutputSchema, out)
	}
	st0 := h.m.Status()
	if len(st0) != 1 || st0[0].Name != "fake" || st0[0].State != StateReady || st0[0].Tools != 3 || st0[0].Connects != 1 || st0[0].Transport != config.TransportStdio {
		t.Errorf("Status: got %+v, want fake ready with 3 tools and 1 connect", st0)
	}
}

func TestCallRoundTripWithProvenance(t *testing.T) {
	h := start(t, map[string]config.Server{"fake": fakeServer()}, Options{})

	res := h.exec(tools.Input{CallID: "root-1", Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "ACME"}})
	wantOK(t, res)
	q := fakemcp.PriceOf("ACME")
	wantQuote, _ := json.Marshal(q)
	jsonEqual(t, "ticker value", res.Value, wantQuote)
	if len(res.Content) == 0 {
		t.Errorf("ticker: got no content, want the fake's text block")
	}

	// A root call carries its own id as root and no parent.
	res = h.exec(tools.Input{CallID: "root-2", Name: "mcp__fake__echo", Arguments: map[string]any{"text": "hi"}})
	wantOK(t, res)
	jsonEqual(t, "echo (root)", res.Value, []byte(`{"text":"hi","meta":{"codemode/callId":"root-2","codemode/rootCallId":"root-2"}}`))

	// A nested call (as ptc makes them) carries all three ids.
	var nested *tools.Result
	_, err := h.reg.Register(tools.GlobalLayer(), tools.Tool{Name: "parent", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		nested = h.reg.Execute(ctx, tools.Input{
			CallID: e.CallID() + ":ptc:1", RootCallID: e.RootCallID(), Parent: e.Token(),
			Name: "mcp__fake__echo", Arguments: map[string]any{"text": "nested"}, Timeout: 10 * time.Second,
		})
		return tools.TextResult("ok"), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	wantOK(t, h.exec(tools.Input{CallID: "p-1", Name: "parent"}))
	wantOK(t, nested)
	jsonEqual(t, "echo (nested)", nested.Value, []byte(`{"text":"nested","meta":{"codemode/callId":"p-1:ptc:1","codemode/rootCallId":"p-1","codemode/parentCallId":"p-1"}}`))
}

// readEvents returns the events the fake has written so far.
func readEvents(t *testing.T, path string) []fakemcp.Event {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fakemcp.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ev fakemcp.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err == nil {
			out = append(out, ev)
		}
	}
	return out
}

// waitEvent waits (up to 20s) until the events file has an event matching
// ok. The file is written by another process, so there is nothing to block
// on; it is re-read every 10ms.
func waitEvent(t *testing.T, path string, ok func(fakemcp.Event) bool) fakemcp.Event {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, ev := range readEvents(t, path) {
			if ok(ev) {
				return ev
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no matching event in %s after 20s; have %+v", path, readEvents(t, path))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSchemaRefusedBeforeUpstream(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	h := start(t, map[string]config.Server{"fake": fakeServer(fakemcp.EnvEvents + "=" + events)}, Options{})

	res := h.exec(tools.Input{Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "ACME", "extra": 1}})
	wantCode(t, res, errs.CodeInvalidArguments)
	// A later good call is the first the fake sees: the refused one never
	// went upstream.
	wantOK(t, h.exec(tools.Input{CallID: "good", Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "ACME"}}))
	ev := waitEvent(t, events, func(ev fakemcp.Event) bool { return ev.Kind == fakemcp.EventCall })
	if ev.Seq != 1 || ev.Meta["codemode/callId"] != "good" {
		t.Errorf("first upstream call: got %+v, want seq 1 with call id \"good\"", ev)
	}
}

func TestCrashGivesUnavailableThenRestarts(t *testing.T) {
	h := start(t, map[string]config.Server{"fake": fakeServer(fakemcp.EnvCrashAfter + "=2")}, Options{})
	echo := func(id string) *tools.Result {
		return h.exec(tools.Input{CallID: id, Name: "mcp__fake__echo", Arguments: map[string]any{"text": id}})
	}
	wantOK(t, echo("first"))

	start := time.Now()
	res := echo("crash") // the fake exits on its second call, without answering
	wantCode(t, res, errs.CodeUpstreamUnavailable)
	t.Logf("crash error: %v", res.Err.Message)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the crashed call took %v, want a prompt failure", d)
	}
	if !strings.Contains(res.Err.Message, `"fake"`) {
		t.Errorf("error message %q does not name the server", res.Err.Message)
	}
	// The tools stay registered during the restart.
	if _, ok := h.reg.Get("mcp__fake__echo"); !ok {
		t.Error("mcp__fake__echo was unregistered by the crash")
	}

	h.waitReady("fake", 2)
	res = echo("after")
	wantOK(t, res)
	jsonEqual(t, "echo after restart", res.Value, []byte(`{"text":"after","meta":{"codemode/callId":"after","codemode/rootCallId":"after"}}`))
	st := h.m.Status()[0]
	if st.Failures < 1 || st.LastError == "" {
		t.Errorf("status after the crash: got %+v, want a failure and its reason", st)
	}
	if !strings.Contains(h.log.String(), "crashing on tool call 2") {
		t.Errorf("the child's stderr did not reach the logger; log:\n%s", h.log.String())
	}
}

func TestSlowCancelledUpstream(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	h := start(t, map[string]config.Server{"fake": fakeServer(fakemcp.EnvEvents + "=" + events)}, Options{})

	// A deadline: TIMEOUT here, and the fake sees the cancellation.
	res := h.exec(tools.Input{CallID: "slow-1", Name: "mcp__fake__slow", Arguments: map[string]any{"ms": 60000}, Timeout: 500 * time.Millisecond})
	wantCode(t, res, errs.CodeTimeout)
	ev := waitEvent(t, events, func(ev fakemcp.Event) bool { return ev.Kind == fakemcp.EventCancelled })
	if ev.Tool != "slow" || ev.Meta["codemode/callId"] != "slow-1" || ev.ElapsedMS >= 60000 {
		t.Errorf("cancel event: got %+v, want slow, call id slow-1, cut short", ev)
	}

	// The caller's own cancellation: CANCELLED, and again upstream.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *tools.Result)
	go func() {
		done <- h.reg.Execute(ctx, tools.Input{CallID: "slow-2", Name: "mcp__fake__slow", Arguments: map[string]any{"ms": 60000}, Timeout: 30 * time.Second})
	}()
	waitEvent(t, events, func(ev fakemcp.Event) bool {
		return ev.Kind == fakemcp.EventCall && ev.Meta["codemode/callId"] == "slow-2"
	})
	cancel()
	wantCode(t, <-done, errs.CodeCancelled)
	waitEvent(t, events, func(ev fakemcp.Event) bool {
		return ev.Kind == fakemcp.EventCancelled && ev.Meta["codemode/callId"] == "slow-2"
	})
	// The server is healthy afterwards (the timeout's ping passed).
	wantOK(t, h.exec(tools.Input{Name: "mcp__fake__echo", Arguments: map[string]any{"text": "x"}}))
	if st := h.m.Status()[0]; st.Connects != 1 {
		t.Errorf("a timed-out call restarted a healthy server: %+v", st)
	}
}

func TestHungServerIsRestarted(t *testing.T) {
	var mu sync.Mutex
	var cmds []*exec.Cmd
	srv := fakeServer()
	h := start(t, map[string]config.Server{"fake": srv}, Options{
		PingTimeout:      300 * time.Millisecond,
		TerminateTimeout: 200 * time.Millisecond,
		Transport: func(name string, s config.Server) (mcp.Transport, error) {
			cmd := exec.Command(s.Command, s.Args...)
			cmd.Env = append(os.Environ(), beFake+"=1")
			mu.Lock()
			cmds = append(cmds, cmd)
			mu.Unlock()
			return &mcp.CommandTransport{Command: cmd, TerminateDuration: 200 * time.Millisecond}, nil
		},
	})
	mu.Lock()
	first := cmds[0]
	mu.Unlock()
	// Freeze the child: it neither answers nor exits.
	if err := first.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, first.Process.Pid)
	res := h.exec(tools.Input{Name: "mcp__fake__echo", Arguments: map[string]any{"text": "x"}, Timeout: 300 * time.Millisecond})
	wantCode(t, res, errs.CodeTimeout)
	h.waitReady("fake", 2)
	wantOK(t, h.exec(tools.Input{Name: "mcp__fake__echo", Arguments: map[string]any{"text": "y"}}))
	if first.ProcessState == nil {
		t.Error("the hung child was not reaped")
	}
	h.m.Close()
	mu.Lock()
	defer mu.Unlock()
	for i, c := range cmds {
		if c.ProcessState == nil {
			t.Errorf("child %d was not reaped by Close", i)
		}
	}
}

// waitStopped waits until the kernel reports pid as stopped: kill(2)
// returns before every thread of the target has stopped.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	path := fmt.Sprintf("/proc/%d/stat", pid)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("cannot observe process state: %v", err)
		}
		// The state follows the parenthesised command name.
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'T' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not stop: %s", pid, b)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestStartSurvivesBrokenServer(t *testing.T) {
	h := start(t, map[string]config.Server{
		"fake":   fakeServer(),
		"broken": {Transport: config.TransportStdio, Command: filepath.Join(t.TempDir(), "no-such-binary")},
	}, Options{})
	st := h.m.Status()
	if len(st) != 2 || st[0].Name != "broken" || st[1].Name != "fake" {
		t.Fatalf("Status: got %+v, want broken and fake", st)
	}
	if st[0].State == StateReady || st[0].LastError == "" || st[0].Failures < 1 {
		t.Errorf("broken: got %+v, want not ready with its error", st[0])
	}
	if st[1].State != StateReady {
		t.Errorf("fake: got %+v, want ready", st[1])
	}
	wantOK(t, h.exec(tools.Input{Name: "mcp__fake__echo", Arguments: map[string]any{"text": "x"}}))
	if !strings.Contains(h.log.String(), "cannot connect") {
		t.Errorf("the failure was not logged; log:\n%s", h.log.String())
	}
}

// TestStartupErrorShowsStderr: a server that exits at start-up saying why
// on stderr (as server-github does without its token) has that line in its
// last error, which the status, the warning and a waiting call show.
func TestStartupErrorShowsStderr(t *testing.T) {
	const why = "Error: GITHUB_TOKEN environment variable is required"
	h := start(t, map[string]config.Server{
		"github": {Transport: config.TransportStdio, Command: "sh", Args: []string{"-c", "echo starting >&2; echo '" + why + "' >&2; exit 1"}},
	}, Options{ReconnectWait: -1})
	st := h.m.Status()[0]
	if st.State == StateReady || !strings.HasSuffix(st.LastError, "; its last stderr line: "+why) {
		t.Errorf("status: got %+v, want the stderr line at the end of its error", st)
	}
	if !strings.Contains(h.log.String(), "its last stderr line: "+why) {
		t.Errorf("the warning lacks the stderr line; log:\n%s", h.log.String())
	}
}

func TestStartRefusesBadOptions(t *testing.T) {
	reg := tools.New(tools.Options{})
	tests := []struct {
		name    string
		servers map[string]config.Server
		opts    Options
		want    string
	}{
		{"bad server name", map[string]config.Server{"a__b": {Command: "x"}}, Options{}, "__"},
		{"no command or url", map[string]config.Server{"a": {}}, Options{}, "needs a command"},
	}
	for _, tt := range tests {
		_, err := Start(context.Background(), reg, tt.servers, tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// memServer serves srv in memory to every connection attempt.
func memServer(t *testing.T, srv *mcp.Server) func(string, config.Server) (mcp.Transport, error) {
	return func(string, config.Server) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { ss.Close() })
		return ct, nil
	}
}

func addTool(srv *mcp.Server, name, desc string) {
	srv.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + ":" + desc}}}, nil
		})
}

func TestListChanged(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem"}, nil)
	addTool(srv, "a", "first")
	h := start(t, map[string]config.Server{"mem": {Transport: config.TransportHTTP, URL: "http://unused.invalid/"}}, Options{Transport: memServer(t, srv)})
	waitTools := func(what string, cond func() bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := h.m.WaitFor(ctx, func([]ServerStatus) bool { return cond() }); err != nil {
			t.Fatalf("waiting for %s: %v; registry has %+v", what, err, h.reg.List(nil))
		}
	}
	if _, ok := h.reg.Get("mcp__mem__a"); !ok {
		t.Fatal("mcp__mem__a not registered")
	}

	// Added (the upstream name kept verbatim, '.' and '-' included).
	addTool(srv, "b.c-d", "second")
	waitTools("b.c-d added", func() bool { _, ok := h.reg.Get("mcp__mem__b.c-d"); return ok })
	res := h.exec(tools.Input{Name: "mcp__mem__b.c-d"})
	wantOK(t, res)
	if got := res.TextOf(); got != "b.c-d:second" {
		t.Errorf("call through the new tool: got %q, want %q (the original name upstream)", got, "b.c-d:second")
	}

	// Changed, in place: a caller hammering the tool meanwhile never finds
	// it missing.
	stop := make(chan struct{})
	unknown := make(chan string, 1)
	go func() {
		defer close(unknown)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if res := h.exec(tools.Input{Name: "mcp__mem__a"}); res.IsError && res.Err.Code == errs.CodeUnknownTool {
				unknown <- res.TextOf()
				return
			}
		}
	}()
	for i := range 20 {
		desc := fmt.Sprint("updated ", i)
		addTool(srv, "a", desc)
		waitTools(desc, func() bool { i, _ := h.reg.Get("mcp__mem__a"); return i.Description == desc })
	}
	close(stop)
	if msg, ok := <-unknown; ok {
		t.Errorf("a call during an update found no tool: %s", msg)
	}

	// Removed.
	srv.RemoveTools("a")
	waitTools("a removed", func() bool { _, ok := h.reg.Get("mcp__mem__a"); return !ok })
	if st := h.m.Status()[0]; st.Tools != 1 {
		t.Errorf("Status: got %d tools, want 1", st.Tools)
	}
}

func TestRootsCapability(t *testing.T) {
	for _, roots := range []bool{false, true} {
		t.Run(fmt.Sprint("roots=", roots), func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "mem"}, nil)
			srv.AddTool(&mcp.Tool{Name: "caps", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					has := false
					if p := req.Session.InitializeParams(); p != nil && p.Capabilities != nil {
						//lint:ignore SA1019 the test checks that codemode does not advertise the deprecated roots capability
						has = p.Capabilities.RootsV2 != nil
					}
					if c, ok := req.Params.Meta[mcp.MetaKeyClientCapabilities]; ok {
						b, _ := json.Marshal(c)
						has = has || strings.Contains(string(b), `"roots"`)
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(has)}}}, nil
				})
			h := start(t, map[string]config.Server{"mem": {Transport: config.TransportStdio, Command: "unused", Roots: roots}}, Options{Transport: memServer(t, srv)})
			res := h.exec(tools.Input{Name: "mcp__mem__caps"})
			wantOK(t, res)
			if got := res.TextOf(); got != fmt.Sprint(roots) {
				t.Errorf("server saw roots capability = %s, want %v", got, roots)
			}
		})
	}
}

func TestCloseLeavesNothingBehind(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := start(t, map[string]config.Server{"fake": fakeServer(), "other": fakeServer()}, Options{})
	wantOK(t, h.exec(tools.Input{Name: "mcp__other__echo", Arguments: map[string]any{"text": "x"}}))
	if err := h.m.Close(); err != nil {
		t.Fatal(err)
	}
	if got := h.reg.List(nil); len(got) != 0 {
		t.Errorf("after Close the registry still has %d tools", len(got))
	}
	for _, s := range h.m.Status() {
		if s.State != StateClosed {
			t.Errorf("%s: got state %s after Close, want closed", s.Name, s.State)
		}
	}
	h.m.Close() // idempotent
}

// A stdio server that spawns a process of its own (as `npx` does) must not
// leave it running when codemode closes the server.
func TestCloseStopsGrandchildren(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	srv := fakeServer()
	// sh starts a long sleep in the background, then becomes the server.
	srv.Args = append([]string{"-c", `sleep 600 & echo $! > "$PIDFILE"; exec "$0" "$@"`, srv.Command}, srv.Args...)
	srv.Command = "sh"
	srv.Env["PIDFILE"] = pidFile
	h := start(t, map[string]config.Server{"fake": srv}, Options{})
	wantOK(t, h.exec(tools.Input{Name: "mcp__fake__echo", Arguments: map[string]any{"text": "x"}}))
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	if !alive(pid) {
		t.Fatalf("the grandchild %s is not running before Close", pid)
	}
	if err := h.m.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the grandchild %s still runs after Close", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie waiting to be reaped does not).
func alive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z" && f[2] != "X"
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name     string
		in       *mcp.CallToolResult
		want     *tools.Result
		wantCode errs.Code
		wantMsg  string
	}{
		{
			name: "structured and text",
			in:   &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "t"}}, StructuredContent: map[string]any{"a": 1.0}},
			want: &tools.Result{Content: []tools.Content{tools.Text{Text: "t"}}, Value: json.RawMessage(`{"a":1}`)},
		},
		{
			name: "image",
			in:   &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}}},
			want: &tools.Result{Content: []tools.Content{tools.Image{Data: []byte{1, 2}, MIMEType: "image/png"}}},
		},
		{
			name: "embedded text resource and link",
			in: &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "u", Text: "body"}},
				&mcp.ResourceLink{URI: "file:///x"},
			}},
			want: &tools.Result{Content: []tools.Content{tools.Text{Text: "body"}, tools.Text{Text: "[resource file:///x]"}}},
		},
		{
			name:     "isError",
			in:       &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom"}}},
			wantCode: errs.CodeToolError, wantMsg: "boom",
		},
		{
			name:     "isError without text",
			in:       &mcp.CallToolResult{IsError: true},
			wantCode: errs.CodeToolError, wantMsg: "the upstream tool reported an error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := convert(tt.in)
			if tt.wantCode != "" {
				var e *errs.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode || e.Message != tt.wantMsg {
					t.Fatalf("got %+v, %v; want error %s %q", got, err, tt.wantCode, tt.wantMsg)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

func TestUpstreamErrorResult(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem"}, nil)
	srv.AddTool(&mcp.Tool{Name: "fail", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("it broke")
		})
	h := start(t, map[string]config.Server{"mem": {Transport: config.TransportStdio, Command: "unused"}}, Options{Transport: memServer(t, srv)})
	res := h.exec(tools.Input{Name: "mcp__mem__fail"})
	wantCode(t, res, errs.CodeToolError)
	if !strings.Contains(res.Err.Message, "it broke") || len(res.Value) != 0 {
		t.Errorf("got %+v, want TOOL_ERROR with the upstream text and no value", res.Err)
	}
}

func TestLineWriter(t *testing.T) {
	var buf logBuffer
	w := newLineWriter(slog.New(slog.NewTextHandler(&buf, nil)))
	fmt.Fprint(w, "one\ntw")
	fmt.Fprint(w, "o\r\nthree")
	w.Flush()
	got := buf.String()
	for _, want := range []string{"line=one", "line=two", "line=three"} {
		if !strings.Contains(got, want) {
			t.Errorf("log %q: want %q", got, want)
		}
	}
	if n := strings.Count(got, "upstream stderr"); n != 3 {
		t.Errorf("got %d records, want 3:\n%s", n, got)
	}
}

func TestStreamableHTTPWithHeaders(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fakemcp.NewServer() }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		handler.ServeHTTP(w, r)
	}))
	defer ts.Close()
	h := start(t, map[string]config.Server{"web": {Transport: config.TransportHTTP, URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}}}, Options{})
	res := h.exec(tools.Input{CallID: "h-1", Name: "mcp__web__echo", Arguments: map[string]any{"text": "over http"}})
	wantOK(t, res)
	jsonEqual(t, "echo over HTTP", res.Value, []byte(`{"text":"over http","meta":{"codemode/callId":"h-1","codemode/rootCallId":"h-1"}}`))
	h.m.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 {
		t.Fatal("the server saw no requests")
	}
	for i, a := range auth {
		if a != "Bearer s3cret" {
			t.Errorf("request %d: got Authorization %q, want the configured header", i, a)
		}
	}
}

// TestManySequentialCalls guards against stalls on the stdio pipes
// (docs/contract.md#stdio): every call must finish well within its own deadline.
func TestManySequentialCalls(t *testing.T) {
	n := 500
	if testing.Short() {
		n = 50
	}
	h := start(t, map[string]config.Server{"fake": fakeServer()}, Options{})
	for i := range n {
		start := time.Now()
		res := h.exec(tools.Input{CallID: fmt.Sprint("s-", i), Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "ACME"}, Timeout: 5 * time.Second})
		if res.IsError {
			t.Fatalf("call %d: got %s %s after %v, want success", i, res.Err.Code, res.Err.Message, time.Since(start))
		}
	}
}

// TestAnnotationsKept: an upstream tool's MCP annotations reach the
// registry, where policies match on them; a tool without any has none.
func TestAnnotationsKept(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mem"}, nil)
	no := false
	srv.AddTool(&mcp.Tool{Name: "wipe", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{Title: "Wipe", DestructiveHint: nil, IdempotentHint: true, OpenWorldHint: &no}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "look", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	addTool(srv, "plain", "no annotations")
	h := start(t, map[string]config.Server{"mem": {Transport: config.TransportHTTP, URL: "http://unused.invalid/"}}, Options{Transport: memServer(t, srv)})
	tests := []struct {
		name                                      string
		readOnly, destructive, idempotent, openWW bool
		title                                     string
		none                                      bool
	}{
		{name: "mcp__mem__wipe", destructive: true, idempotent: true, title: "Wipe"},
		{name: "mcp__mem__look", readOnly: true, openWW: true},
		{name: "mcp__mem__plain", destructive: true, openWW: true, none: true},
	}
	for _, tt := range tests {
		info, ok := h.reg.Get(tt.name)
		if !ok {
			t.Fatalf("%s not registered", tt.name)
		}
		a := info.Annotations
		if (a == nil) != tt.none {
			t.Errorf("%s: annotations %+v, want none: %v", tt.name, a, tt.none)
		}
		got := [4]bool{a.IsReadOnly(), a.IsDestructive(), a.IsIdempotent(), a.IsOpenWorld()}
		want := [4]bool{tt.readOnly, tt.destructive, tt.idempotent, tt.openWW}
		if got != want {
			t.Errorf("%s: readOnly, destructive, idempotent, openWorld = %v, want %v", tt.name, got, want)
		}
		if a != nil && a.Title != tt.title {
			t.Errorf("%s: title %q, want %q", tt.name, a.Title, tt.title)
		}
	}
}
