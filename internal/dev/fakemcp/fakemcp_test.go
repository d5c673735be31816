package fakemcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
	"go.uber.org/goleak"

	"github.com/codemode/codemode/internal/dev/fakemcp"
)

// childEnv makes a re-executed test binary run fakemcp.Main instead of the
// tests, which gives a real process on real pipes without a go build.
const childEnv = "FAKEMCP_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(fakemcp.Main(context.Background(), os.Stdin, os.Stdout, os.Stderr))
	}
	goleak.VerifyTestMain(m)
}

// connect serves s over in-memory transports and returns a client session
// closed at cleanup.
func connect(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fakemcp-test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// canon re-encodes a JSON text with sorted keys, the order in which the
// SDK's schema validation leaves structured content.
func canon(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return mustJSON(t, v)
}

func TestListTools(t *testing.T) {
	cs := connect(t, fakemcp.NewServer())
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s: empty description", tool.Name)
		}
		for what, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			m, ok := schema.(map[string]any)
			if !ok || m["type"] != "object" {
				t.Errorf("%s: %s schema: got %v, want an object schema", tool.Name, what, schema)
			}
		}
	}
	slices.Sort(names)
	if got, want := strings.Join(names, ","), "echo,slow,ticker"; got != want {
		t.Errorf("tools: got %s, want %s", got, want)
	}

	i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "ticker" })
	in := res.Tools[i].InputSchema.(map[string]any)
	if got, want := mustJSON(t, in["additionalProperties"]), "false"; got != want {
		t.Errorf("ticker additionalProperties: got %s, want %s", got, want)
	}
	if got, want := mustJSON(t, in["required"]), `["symbol"]`; got != want {
		t.Errorf("ticker required: got %s, want %s", got, want)
	}
}

func TestCallTool(t *testing.T) {
	tests := []struct {
		name string
		tool string
		args any
		meta mcp.Meta
		// want is the structured content as JSON, or, when wantError, a
		// substring of the error text.
		want      string
		wantError bool
	}{
		{name: "ticker", tool: "ticker", args: map[string]any{"symbol": "ACME"},
			want: `{"currency":"USD","price":211.91,"symbol":"ACME"}`},
		{name: "ticker other symbol", tool: "ticker", args: map[string]any{"symbol": "GOOG"},
			want: canon(t, mustJSON(t, fakemcp.PriceOf("GOOG")))},
		{name: "ticker extra property", tool: "ticker", args: map[string]any{"symbol": "ACME", "exchange": "NYSE"},
			want: "additional properties", wantError: true},
		{name: "ticker missing symbol", tool: "ticker", args: map[string]any{},
			want: "symbol", wantError: true},
		{name: "ticker empty symbol", tool: "ticker", args: map[string]any{"symbol": ""},
			want: "minLength", wantError: true},
		{name: "ticker wrong type", tool: "ticker", args: map[string]any{"symbol": 42},
			want: "type", wantError: true},
		{name: "echo", tool: "echo", args: map[string]any{"text": "héllo"},
			want: `{"text":"héllo"}`},
		{name: "echo with provenance", tool: "echo", args: map[string]any{"text": "hi"},
			meta: mcp.Meta{"codemode/callId": "c1:ptc:2", "codemode/rootCallId": "c1", "codemode/parentCallId": "c1", "progressToken": 7},
			want: `{"meta":{"codemode/callId":"c1:ptc:2","codemode/parentCallId":"c1","codemode/rootCallId":"c1"},"text":"hi"}`},
		{name: "slow", tool: "slow", args: map[string]any{"ms": 1},
			want: `{"slept":1}`},
		{name: "slow zero", tool: "slow", args: map[string]any{"ms": 0},
			want: `{"slept":0}`},
		{name: "slow negative", tool: "slow", args: map[string]any{"ms": -1},
			want: "minimum", wantError: true},
	}
	cs := connect(t, fakemcp.NewServer())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Meta: tt.meta, Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("CallTool: got protocol error %v, want a result", err)
			}
			if len(res.Content) != 1 {
				t.Fatalf("content: got %d blocks, want 1", len(res.Content))
			}
			text, ok := res.Content[0].(*mcp.TextContent)
			if !ok {
				t.Fatalf("content: got %T, want *mcp.TextContent", res.Content[0])
			}
			if res.IsError != tt.wantError {
				t.Fatalf("IsError: got %v (%s), want %v", res.IsError, text.Text, tt.wantError)
			}
			if tt.wantError {
				if !strings.Contains(text.Text, tt.want) {
					t.Errorf("error text: got %q, want it to mention %q", text.Text, tt.want)
				}
				return
			}
			if got := mustJSON(t, res.StructuredContent); got != tt.want {
				t.Errorf("structured content: got %s, want %s", got, tt.want)
			}
			// The text block carries the same JSON for clients that ignore
			// structured content.
			var fromText any
			if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
				t.Fatalf("text content %q: %v", text.Text, err)
			}
			if got := mustJSON(t, fromText); got != tt.want {
				t.Errorf("text content: got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestProvenance(t *testing.T) {
	tests := []struct {
		name string
		meta map[string]any
		want string
	}{
		{name: "nil", meta: nil, want: "null"},
		{name: "only protocol keys", meta: map[string]any{
			"io.modelcontextprotocol/protocolVersion": "x", "dev.mcp/y": 1, "progressToken": "p"}, want: "null"},
		{name: "mixed", meta: map[string]any{
			"io.modelcontextprotocol/clientInfo": map[string]any{}, "callId": "c1", "codemode.dev/rootCallId": "r"},
			want: `{"callId":"c1","codemode.dev/rootCallId":"r"}`},
		{name: "lookalikes kept", meta: map[string]any{"mcp/x": 1, "modelcontextprotocol.io/y": 2, "a.b.mcp/z": 3},
			want: `{"a.b.mcp/z":3,"mcp/x":1,"modelcontextprotocol.io/y":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustJSON(t, fakemcp.Provenance(tt.meta)); got != tt.want {
				t.Errorf("Provenance: got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestPriceOf(t *testing.T) {
	tests := []struct {
		symbol string
		want   float64
	}{
		{"ACME", 211.91},
		{"", fakemcp.PriceOf("").Price},
	}
	for _, tt := range tests {
		for range 3 {
			if got := fakemcp.PriceOf(tt.symbol); got.Price != tt.want || got.Symbol != tt.symbol || got.Currency != "USD" {
				t.Errorf("PriceOf(%q): got %+v, want {%s %v USD}", tt.symbol, got, tt.symbol, tt.want)
			}
		}
	}
}

func FuzzPriceOf(f *testing.F) {
	for _, s := range []string{"", "ACME", "GOOG", "ü", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, symbol string) {
		q := fakemcp.PriceOf(symbol)
		if q.Price < 1 || q.Price > 999.99 {
			t.Errorf("PriceOf(%q).Price: got %v, want within [1, 999.99]", symbol, q.Price)
		}
		if cents := math.Round(q.Price * 100); cents/100 != q.Price {
			t.Errorf("PriceOf(%q).Price: got %v, want two decimals", symbol, q.Price)
		}
		if q != fakemcp.PriceOf(symbol) {
			t.Errorf("PriceOf(%q) is not deterministic", symbol)
		}
	})
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader on different
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitEvent returns the next event of the given kind, failing the test if
// none arrives within a generous bound (a guard against hangs, not a wait).
func waitEvent(t *testing.T, events <-chan fakemcp.Event, kind string) fakemcp.Event {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == kind {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %q event", kind)
		}
	}
}

func TestSlowCancelled(t *testing.T) {
	events := make(chan fakemcp.Event, 8)
	var log syncBuffer
	cs := connect(t, fakemcp.NewServerWith(fakemcp.Options{Log: &log, OnEvent: func(ev fakemcp.Event) { events <- ev }}))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"ms": 600000}, Meta: mcp.Meta{"codemode/callId": "c9"}})
		done <- err
	}()
	// Cancel only once the handler runs, so it is the handler that sees the
	// cancellation rather than the SDK dropping a request not yet started.
	call := waitEvent(t, events, fakemcp.EventCall)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("CallTool: got %v, want context.Canceled", err)
	}
	got := waitEvent(t, events, fakemcp.EventCancelled)
	if got.Seq != call.Seq || got.Tool != "slow" || got.Meta["codemode/callId"] != "c9" {
		t.Errorf("cancelled event: got %+v, want seq %d, tool slow, meta callId c9", got, call.Seq)
	}
	if want := fmt.Sprintf("slow: cancelled after %d ms\n", got.ElapsedMS); log.String() != want {
		t.Errorf("log: got %q, want %q", log.String(), want)
	}

	// The session survives a cancelled call.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still here"}})
	if err != nil || res.IsError {
		t.Fatalf("echo after cancel: got %v, %v; want a result", res, err)
	}
}

func TestEventsNumberCalls(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
	)
	cs := connect(t, fakemcp.NewServerWith(fakemcp.Options{OnEvent: func(ev fakemcp.Event) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprintf("%d:%s:%s", ev.Seq, ev.Kind, ev.Tool))
	}}))
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"echo", map[string]any{"text": "a"}},
		{"ticker", map[string]any{"symbol": "X", "bad": true}}, // refused by the schema: no event
		{"ticker", map[string]any{"symbol": "X"}},
		{"slow", map[string]any{"ms": 0}},
	} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(got, " "), "1:call:echo 2:call:ticker 3:call:slow"; got != want {
		t.Errorf("events: got %s, want %s", got, want)
	}
}
