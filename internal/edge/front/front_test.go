package front

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/dev/golden"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"golang.org/x/tools/txtar"
)

// newFront mounts code mode with in-process equivalents of the fake
// server's ticker and echo, and connects a client over in-memory
// transports. The client side logs the wire to w.
func newFront(t *testing.T, w *bytes.Buffer, opts *mcp.ClientOptions) (*mcp.ClientSession, *tools.Registry) {
	t.Helper()
	host := scope.NewHost("host")
	t.Cleanup(func() { host.Dispose() })
	reg := tools.New(tools.Options{})
	_, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__fake__ticker", Description: "Quote for a symbol.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"symbol":{"type":"string"}},"required":["symbol"],"additionalProperties":false}`),
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			var a struct{ Symbol string }
			json.Unmarshal(e.Arguments(), &a)
			return tools.ValueResult(fakemcp.PriceOf(a.Symbol))
		}})
	if err != nil {
		t.Fatal(err)
	}
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), Options{Registry: reg, Preset: preset})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st); err != nil {
		t.Fatal(err)
	}
	var transport mcp.Transport = ct
	if w != nil {
		transport = &mcp.LoggingTransport{Transport: ct, Writer: w}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "golden", Version: "1"}, opts).Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, reg
}

var (
	versionRe = regexp.MustCompile(`"protocolVersion":"[^"]*"`)
	durRe     = regexp.MustCompile(`"ms":[0-9.]+`)
)

// TestTranscript pins the MCP exchange for list and call.
func TestTranscript(t *testing.T) {
	var wire bytes.Buffer
	cs, _ := newFront(t, &wire, nil)
	ctx := context.Background()
	var files []txtar.File
	step := func(name string, f func()) {
		wire.Reset()
		f()
		// The logging transport records a write after it returns, so a fast
		// reply can be logged first: order each step as writes, then reads.
		lines := strings.SplitAfter(wire.String(), "\n")
		sort.SliceStable(lines, func(i, j int) bool {
			return strings.HasPrefix(lines[i], "write:") && !strings.HasPrefix(lines[j], "write:")
		})
		data := versionRe.ReplaceAllString(strings.Join(lines, ""), `"protocolVersion":"X"`)
		data = durRe.ReplaceAllString(data, `"ms":0`)
		files = append(files, txtar.File{Name: name, Data: []byte(data)})
	}
	step("tools-list", func() {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
	})
	step("call-code-run", func() {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": `console.log("hi"); return await tools.mcp__fake__ticker({ symbol: "ACME" })`}}); err != nil {
			t.Fatal(err)
		}
	})
	step("call-masked", func() {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "ACME"}}); err != nil {
			t.Fatal(err)
		}
	})
	step("call-program-error", func() {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": `await tools.mcp__fake__ticker({ symbol: 1 })`}}); err != nil {
			t.Fatal(err)
		}
	})
	golden.Check(t, "testdata/transcript.txtar", "The MCP exchange (client-side wire log); regenerate with go test ./internal/front -run TestTranscript -update\n", files)
}

func TestProgress(t *testing.T) {
	var mu sync.Mutex
	var got []string
	cs, _ := newFront(t, nil, &mcp.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params.Message)
		mu.Unlock()
	}})
	params := &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": `console.log("step 1"); await tools.mcp__fake__ticker({ symbol: "A" }); console.log("step 2"); return 1`}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	// Notifications are sent before the response on the same connection,
	// but delivered by the client asynchronously: wait for both.
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 2 {
			break
		}
		_ = cs.Ping(context.Background(), nil) // a round trip lets queued notifications arrive
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != "step 1,step 2" {
		t.Fatalf("got progress %q", got)
	}
}

// When the registry's tools change (an upstream server added a tool), the
// front tells its clients, whose next tools/list shows code_run's new
// catalog.
func TestToolListChanged(t *testing.T) {
	changed := make(chan struct{}, 16)
	cs, reg := newFront(t, nil, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	ctx := context.Background()
	describe := func() string {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		desc := ""
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
			if tl.Name == codemode.ToolCodeRun {
				desc = tl.Description
			}
		}
		if strings.Join(names, ",") != codemode.ToolCodeRun {
			t.Fatalf("tools/list: got %v, want only code_run", names)
		}
		return desc
	}
	if strings.Contains(describe(), "  weather(args") {
		t.Fatal("the catalog lists a tool that does not exist yet")
	}
	remove, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__fake__weather", Description: "Weather for a city.",
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			return tools.TextResult("sunny"), nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after a tool was registered")
	}
	if d := describe(); !strings.Contains(d, "  weather(args") {
		t.Errorf("code_run's catalog after the change does not list the new tool:\n%s", d)
	}
	remove.Remove()
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed after a tool was removed")
	}
	if strings.Contains(describe(), "  weather(args") {
		t.Error("the catalog still lists the removed tool")
	}
}

// The probe tool behind tools/list_changed must be a name the SDK accepts,
// or every registry change logs an error.
func TestListChangedProbeLogsNothing(t *testing.T) {
	host := scope.NewHost("host")
	defer host.Dispose()
	reg := tools.New(tools.Options{})
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{}); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	srv, err := New(context.Background(), Options{Registry: reg, Preset: preset, Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	remove, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__x__y", Handler: func(context.Context, *tools.Execution) (*tools.Result, error) { return nil, nil }})
	if err != nil {
		t.Fatal(err)
	}
	remove.Remove()
	if logs.Len() > 0 {
		t.Errorf("a registry change logged:\n%s", logs.String())
	}
}

// A program that prints as fast as it can must not flood the client: lines
// are coalesced into at most one notification per progressInterval, and
// each notification is bounded.
func TestProgressFloodIsCoalesced(t *testing.T) {
	var mu sync.Mutex
	var msgs []string
	cs, _ := newFront(t, nil, &mcp.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		msgs = append(msgs, r.Params.Message)
		mu.Unlock()
	}})
	params := &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": `for (let i = 0; i < 20000; i++) console.log("line " + i); return 1`}}
	params.SetProgressToken("tok-flood")
	start := time.Now()
	res, err := cs.CallTool(context.Background(), params)
	elapsed := time.Since(start)
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	_ = cs.Ping(context.Background(), nil)
	mu.Lock()
	defer mu.Unlock()
	if max := int(elapsed/progressInterval) + 2; len(msgs) > max {
		t.Errorf("got %d notifications in %v, want at most %d", len(msgs), elapsed, max)
	}
	for i, m := range msgs {
		if len(m) > progressMaxBytes+200 {
			t.Errorf("notification %d is %d bytes, over %d", i, len(m), progressMaxBytes)
		}
	}
	if len(msgs) == 0 || !strings.HasPrefix(msgs[0], "line 0") {
		t.Fatalf("the first line was not sent at once: %.40q", msgs)
	}
}

// TestInstructionsAreFresh: the instructions a session receives are
// assembled when it initializes, not when the server started.
func TestInstructionsAreFresh(t *testing.T) {
	host := scope.NewHost("host")
	t.Cleanup(func() { host.Dispose() })
	reg := tools.New(tools.Options{})
	// Another plugin writes the number of callable tools into the Code
	// Mode section (its hook is outermost: added first), so the section
	// shows when it was assembled.
	reg.OnAssemble(func(ctx context.Context, agent *tools.Agent, next func() (*tools.Assembly, error)) (*tools.Assembly, error) {
		a, err := next()
		if err != nil {
			return a, err
		}
		for i, sec := range a.Sections {
			if sec.Name == "code-mode" {
				a.Sections[i].Text += fmt.Sprintf("(%d registered)", len(reg.List(nil)))
			}
		}
		return a, nil
	})
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{}); err != nil {
		t.Fatal(err)
	}
	srv, err := New(context.Background(), Options{Registry: reg, Preset: preset})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	connect := func() string {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st); err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "fresh", Version: "1"}, nil).Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		return cs.InitializeResult().Instructions
	}
	before := connect()
	if _, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__late__tool", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		return tools.TextResult("ok"), nil
	}}); err != nil {
		t.Fatal(err)
	}
	after := connect()
	n := len(reg.List(nil))
	if !strings.HasSuffix(before, fmt.Sprintf("(%d registered)", n-1)) || !strings.HasSuffix(after, fmt.Sprintf("(%d registered)", n)) {
		t.Errorf("instructions did not follow the registry:\nbefore: %q\nafter:  %q", before, after)
	}
}
