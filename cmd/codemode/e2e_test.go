package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// The end-to-end tests run the built binary through real pipes with a
// go-sdk client, as an agent would.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "codemode-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "codemode")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building codemode:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// connectStdio starts `codemode serve` with extra args and environment.
func connectStdio(t *testing.T, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir() // no ./codemode.json: the embedded default
	var stderr bytes.Buffer
	cmd.Stderr = &lockedWriter{w: &stderr}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func codeRun(t *testing.T, cs *mcp.ClientSession, code string) *mcp.CallToolResult {
	t.Helper()
	return call(t, cs, "code_run", map[string]any{"code": code})
}

func TestServeStdio(t *testing.T) {
	cs := connectStdio(t, nil)
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if len(names) != 1 || names[0] != "code_run" {
		t.Fatalf("tools/list: got %v, want [code_run] (no mcp__* and no discovery tools)", names)
	}
	if d := list.Tools[0].Description; !strings.Contains(d, "fake: tools.mcp__fake__NAME(args)") || !strings.Contains(d, "  ticker(args: {symbol: string}): Promise<{") {
		t.Errorf("code_run's description lacks the catalog: %q", d)
	}
	if init := cs.InitializeResult(); !strings.Contains(init.Instructions, "# Code Mode") {
		t.Errorf("instructions: got %q", init.Instructions)
	}

	t.Run("search and call the hit", func(t *testing.T) {
		res := codeRun(t, cs, `const { hits } = await tools.code_tools_search({ query: "ticker" });
return await tools[hits[0].name]({ symbol: "ACME" });`)
		if res.IsError || !strings.Contains(text(res), `"symbol":"ACME"`) || !strings.Contains(text(res), `"currency":"USD"`) {
			t.Fatalf("got %q", text(res))
		}
	})
	t.Run("direct call to a masked tool gets the hint", func(t *testing.T) {
		res := call(t, cs, "mcp__fake__ticker", map[string]any{"symbol": "ACME"})
		if !res.IsError || !strings.Contains(text(res), "code_run") || !strings.Contains(text(res), `tools[\"mcp__fake__ticker\"]({\"symbol\":\"ACME\"})`) {
			t.Fatalf("got %q", text(res))
		}
	})
	t.Run("unknown tool is a tool error, not a protocol error", func(t *testing.T) {
		res := call(t, cs, "mcp__fake__tickr", map[string]any{})
		if !res.IsError || !strings.Contains(text(res), "did you mean") {
			t.Fatalf("got %q", text(res))
		}
	})
	t.Run("program errors carry code and logs", func(t *testing.T) {
		res := codeRun(t, cs, "console.log('before'); throw new Error('boom')")
		if !res.IsError || !strings.Contains(text(res), "before") || !strings.Contains(text(res), "RUNTIME_ERROR") || !strings.Contains(text(res), "boom") {
			t.Fatalf("got %q", text(res))
		}
	})
}

func TestServePersistentSessions(t *testing.T) {
	env := []string{}
	a := connectStdio(t, env, "--mode", "persistent-in-memory")
	if res := codeRun(t, a, "let counter = 41; function bump() { return ++counter }"); res.IsError {
		t.Fatal(text(res))
	}
	if res := codeRun(t, a, "return bump()"); res.IsError || text(res) != "42" {
		t.Fatalf("second call in one session: got %q", text(res))
	}
	b := connectStdio(t, env, "--mode", "persistent-in-memory")
	if res := codeRun(t, b, "return typeof counter"); text(res) != `"undefined"` {
		t.Fatalf("a new session sees old state: got %q", text(res))
	}
}

func TestServeHTTPConcurrentSessions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "serve", "--mode", "persistent-in-memory", "--listen", "127.0.0.1:0")
	cmd.Dir = t.TempDir()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cancel()
	sc := bufio.NewScanner(stderr)
	var endpoint string
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "serving MCP at "); ok {
			endpoint = rest
			break
		}
	}
	if endpoint == "" {
		t.Fatal("the server did not report its address")
	}
	go io.Copy(io.Discard, stderr)

	connect := func() *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	s1, s2 := connect(), connect()
	var wg sync.WaitGroup
	for i, cs := range []*mcp.ClientSession{s1, s2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := codeRun(t, cs, fmt.Sprintf("var mine = %d", i)); res.IsError {
				t.Error(text(res))
			}
		}()
	}
	wg.Wait()
	for i, cs := range []*mcp.ClientSession{s1, s2} {
		if got := text(codeRun(t, cs, "return mine")); got != fmt.Sprint(i) {
			t.Errorf("session %d: got %q, want its own state %d", i, got, i)
		}
	}
	// The fence: a rebound Host is refused.
	req, _ := http.NewRequest("POST", endpoint, strings.NewReader("{}"))
	req.Host = "evil.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("rebound Host: got %d, want 403", resp.StatusCode)
	}
}

func TestServeUpstreamCrashAndCancel(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	cs := connectStdio(t, []string{"FAKEMCP_CRASH_AFTER=2", "FAKEMCP_EVENTS=" + events})
	// Call 1 works; call 2 kills the fake mid-run.
	res := codeRun(t, cs, `const a = await tools.mcp__fake__echo({ text: "one" });
let second;
try { await tools.mcp__fake__echo({ text: "two" }) } catch (e) { second = e.code }
return { a: a.text, second };`)
	if res.IsError || !strings.Contains(text(res), `"second":"UPSTREAM_UNAVAILABLE"`) {
		t.Fatalf("got %q, want a clean UPSTREAM_UNAVAILABLE", text(res))
	}
	// The server is restarted with backoff; the next calls work.
	deadline := time.Now().Add(20 * time.Second)
	for {
		res = codeRun(t, cs, `return (await tools.mcp__fake__echo({ text: "three" })).text`)
		if !res.IsError && text(res) == `"three"` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the upstream did not come back: %q", text(res))
		}
		time.Sleep(100 * time.Millisecond) // polling a restart with backoff: no event to wait on over MCP
	}
}

func TestServeTimeoutCancelsUpstream(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	cs := connectStdio(t, []string{"FAKEMCP_EVENTS=" + events})
	// A program timeout cancels its nested slow call upstream.
	res := call(t, cs, "code_run", map[string]any{"code": `await tools.mcp__fake__slow({ ms: 20000 })`, "timeoutMs": 300})
	if !res.IsError || !strings.Contains(text(res), "TIMEOUT") {
		t.Fatalf("got %q, want TIMEOUT", text(res))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(events)
		if bytes.Contains(b, []byte(`"cancelled"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the fake never saw the cancellation; events:\n%s", b)
		}
		time.Sleep(50 * time.Millisecond) // another process's file: polled, bounded
	}
}

func TestRunJSONFloodedLog(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "flood.js")
	os.WriteFile(prog, []byte(`for (let i = 0; i < 200000; i++) console.log("line " + i + " " + "x".repeat(40)); return "done";`), 0o644)
	cmd := exec.Command(binary, "run", "--json", prog)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	dec := json.NewDecoder(&stdout)
	var out struct {
		Value any
		Logs  []struct{ Level, Text string }
		Error any
		Calls []any
		Ms    float64
	}
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	if dec.More() {
		t.Fatal("stdout holds more than one JSON value")
	}
	if out.Value != "done" || out.Error != nil || len(out.Logs) == 0 || !strings.Contains(out.Logs[len(out.Logs)-1].Text, "truncated") {
		t.Fatalf("got value %v, error %v, %d logs", out.Value, out.Error, len(out.Logs))
	}
}

// TestRunJSONLongToolName: a 3 MB unknown tool name is refused, and the
// answer stays small (the calls list carries a cut copy of the name).
func TestRunJSONLongToolName(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "long.js")
	os.WriteFile(prog, []byte(`return await tools["x".repeat(3e6)]({})`), 0o644)
	cmd := exec.Command(binary, "run", "--json", prog)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run() // exits non-zero: the program failed
	if stdout.Len() > 16<<10 {
		t.Fatalf("run --json answered %d bytes", stdout.Len())
	}
	var out struct {
		Error struct{ Code string }
		Calls []struct{ Name string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if out.Error.Code != "UNKNOWN_TOOL" || len(out.Calls) != 1 || len(out.Calls[0].Name) > 1024 {
		t.Fatalf("got code %q and calls %d", out.Error.Code, len(out.Calls))
	}
}

func TestCLIUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{}, exitUsage, "Usage"},
		{[]string{"help"}, exitOK, "Commands"},
		{[]string{"nope"}, exitUsage, "unknown command"},
		{[]string{"run", "--help"}, exitOK, "-json"},
		{[]string{"run"}, exitUsage, "exactly one program"},
		{[]string{"run", "--engine", "v8", "x.js"}, exitUsage, "x.js"},
		{[]string{"serve", "--help"}, exitOK, "-listen"},
		{[]string{"version"}, exitOK, "codemode"},
		{[]string{"tools", "frob"}, exitUsage, "unknown subcommand"},
		{[]string{"prompt", "--help"}, exitOK, "-json"},
		{[]string{"prompt", "extra"}, exitUsage, "unexpected argument"},
		{[]string{"bench", "--via", "http", "--url", "http://127.0.0.1:1/mcp", "--mode", "per-call"}, exitUsage, "give the server's --engine and --mode"},
		{[]string{"bench", "--peer", "server.mjs"}, exitUsage, "--peer: with --via mcp"},
		{[]string{"serve", "--drain-timeout", "-1s"}, exitUsage, "must be positive"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String()+stderr.String(), tt.out) {
			t.Errorf("%v: got %d %q, want %d containing %q", tt.args, code, stdout.String()+stderr.String(), tt.code, tt.out)
		}
	}
	// A bad config is refused naming the key.
	cfg := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(cfg, []byte(`{"mcpServers":{"x":{"comand":"y"}}}`), 0o644)
	var stdout, stderr bytes.Buffer
	prog := filepath.Join(t.TempDir(), "p.js")
	os.WriteFile(prog, []byte("return 1"), 0o644)
	if code := run(context.Background(), []string{"run", "--config", cfg, prog}, nil, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "comand") {
		t.Errorf("bad config: got %d %q", code, stderr.String())
	}
}

// TestServeStdioNoStall is docs/contract.md#stdio's guard for the server itself: many
// sequential calls through `codemode serve` over real pipes, each with its
// own timeout; any stall fails the test instead of hanging it.
func TestServeStdioNoStall(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	cs := connectStdio(t, nil)
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": fmt.Sprintf("return %d", i)}})
		cancel()
		if err != nil {
			t.Fatalf("call %d of %d: %v (a stall over 5s is a bug)", i, n, err)
		}
		if text(res) != fmt.Sprint(i) {
			t.Fatalf("call %d: got %q", i, text(res))
		}
	}
}

// TestServeWazero runs the search-and-call program on the wazero engine
// through `codemode serve`.
func TestServeWazero(t *testing.T) {
	cs := connectStdio(t, nil, "--engine", "wazero", "--mode", "persistent-in-memory")
	res := codeRun(t, cs, `const { hits } = await tools.code_tools_search({ query: "ticker" });
var last = await tools[hits[0].name]({ symbol: "ACME" }); return last.currency`)
	if res.IsError || text(res) != `"USD"` {
		t.Fatalf("got %q", text(res))
	}
	if res := codeRun(t, cs, "return last.symbol"); text(res) != `"ACME"` {
		t.Fatalf("persistent state on wazero: got %q", text(res))
	}
	if res := codeRun(t, cs, "const a = []; while (true) a.push(new Array(1e5).fill(1))"); !res.IsError || !strings.Contains(text(res), "MEMORY_LIMIT") {
		t.Fatalf("memory bomb: got %q", text(res))
	}
}

// startHTTP starts `codemode serve --listen 127.0.0.1:0` with extra args
// and environment and returns the process, its endpoint and its stderr
// (complete once the process has exited).
func startHTTP(t *testing.T, env []string, args ...string) (*exec.Cmd, string, *lockedWriter) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir()
	pr, pw := io.Pipe()
	stderr := &lockedWriter{w: &bytes.Buffer{}}
	cmd.Stderr = io.MultiWriter(stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(pr)
	endpoint := ""
	for endpoint == "" && sc.Scan() {
		_, endpoint, _ = strings.Cut(sc.Text(), "serving MCP at ")
	}
	go io.Copy(io.Discard, pr)
	if endpoint == "" {
		t.Fatalf("the server did not report its address")
	}
	return cmd, endpoint, stderr
}

// waitEvent waits (bounded) until the fake's event file has a line with
// all the substrings.
func waitEvent(t *testing.T, events string, subs ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(events)
		for _, line := range strings.Split(string(b), "\n") {
			ok := line != ""
			for _, s := range subs {
				ok = ok && strings.Contains(line, s)
			}
			if ok {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no event with %q; events:\n%s", subs, b)
		}
		time.Sleep(20 * time.Millisecond) // another process's file: polled, bounded
	}
}

// SIGTERM drains: a running program finishes and its result is delivered,
// new connections are refused, and the process exits 0. Over HTTP and
// over stdio.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	slow := map[string]any{"code": `const r = await tools.mcp__fake__slow({ ms: 1500 }); return "finished"`}
	// check wants the result, then the process to exit 0 (wait returns
	// its exit).
	check := func(t *testing.T, res *mcp.CallToolResult, err error, wait func() error, stderr *lockedWriter) {
		t.Helper()
		if err != nil || res.IsError || text(res) != `"finished"` {
			t.Fatalf("the running program: got %v %v, want its result", err, res)
		}
		waited := make(chan error, 1)
		go func() { waited <- wait() }()
		select {
		case err := <-waited:
			if err != nil {
				t.Fatalf("exit: %v (want 0)\n%s", err, stderr.w)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("the server did not exit after draining\n%s", stderr.w)
		}
		stderr.mu.Lock()
		defer stderr.mu.Unlock()
		if !strings.Contains(fmt.Sprint(stderr.w), "drained in") {
			t.Errorf("stderr does not report the drain:\n%s", stderr.w)
		}
	}

	t.Run("http", func(t *testing.T) {
		events := filepath.Join(t.TempDir(), "events.jsonl")
		cmd, endpoint, stderr := startHTTP(t, []string{"FAKEMCP_EVENTS=" + events}, "--mode", "persistent-in-memory", "--replica", "r1")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "drain", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if !strings.HasPrefix(cs.ID(), "r1.") {
			t.Errorf("session id %q does not name the replica r1", cs.ID())
		}
		type result struct {
			res *mcp.CallToolResult
			err error
		}
		got := make(chan result, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_run", Arguments: slow})
			got <- result{res, err}
		}()
		waitEvent(t, events, `"slow"`)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		r := <-got
		// The listener is closed at once: a new client cannot connect.
		if _, err := http.Post(endpoint, "application/json", strings.NewReader("{}")); err == nil {
			t.Error("a new connection was accepted while draining")
		}
		check(t, r.res, r.err, cmd.Wait, stderr)
	})

	t.Run("stdio", func(t *testing.T) {
		events := filepath.Join(t.TempDir(), "events.jsonl")
		cmd := exec.Command(binary, "serve")
		cmd.Env = append(os.Environ(), "FAKEMCP_EVENTS="+events)
		cmd.Dir = t.TempDir()
		stderr := &lockedWriter{w: &bytes.Buffer{}}
		cmd.Stderr = stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "drain", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan *mcp.CallToolResult, 1)
		errc := make(chan error, 1)
		go func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code_run", Arguments: slow})
			got <- res
			errc <- err
		}()
		waitEvent(t, events, `"slow"`)
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		res, err := <-got, <-errc
		check(t, res, err, func() error {
			// The server ends the session itself; Close then only
			// collects the exit status (the SDK waits for the process).
			if err := cs.Wait(); err != nil {
				t.Logf("session ended: %v", err)
			}
			return cs.Close()
		}, stderr)
	})
}

func TestServeStatelessRefusals(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--stateless", "--listen", "127.0.0.1:0", "--mode", "persistent-in-memory"}, "cannot serve mode \"persistent-in-memory\""},
		{[]string{"serve", "--stateless"}, "add --listen"},
		{[]string{"serve", "--listen", "127.0.0.1:0", "--replica", "Not_A_Label"}, "must match"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: got %d %q, want %d containing %q", tt.args, code, stderr.String(), exitUsage, tt.want)
		}
	}
}
