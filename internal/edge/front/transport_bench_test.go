package front

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/httpfence"
	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// pipeTransports returns a server and a client transport joined by two
// os.Pipe pairs (netpoller files, as stdio is in `codemode serve`); mk
// builds each side's transport from its reader and writer.
func pipeTransports(tb testing.TB, mk func(r *os.File, w *os.File) mcp.Transport) (server, client mcp.Transport) {
	tb.Helper()
	sr, cw, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	return mk(sr, sw), mk(cr, cw)
}

// benchFront serves code mode (persistent, goja) on st and connects a
// client on ct.
func benchFront(tb testing.TB, st, ct mcp.Transport) *mcp.ClientSession {
	return benchFrontMode(tb, st, ct, runtime.ModePersistent)
}

// benchFrontMode is benchFront in mode.
func benchFrontMode(tb testing.TB, st, ct mcp.Transport, mode runtime.Mode) *mcp.ClientSession {
	tb.Helper()
	host := scope.NewHost("host")
	tb.Cleanup(func() { host.Dispose() })
	reg := tools.New(tools.Options{})
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{Engine: "goja", Mode: mode}); err != nil {
		tb.Fatal(err)
	}
	srv, err := New(context.Background(), Options{Registry: reg, Preset: preset})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Close)
	if _, err := srv.Connect(context.Background(), st); err != nil {
		tb.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cs.Close() })
	return cs
}

func benchTrivial(b *testing.B, cs *mcp.ClientSession) {
	ctx := context.Background()
	args := map[string]any{"code": "return 1 + 1"}
	for range 20 {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolCodeRun, Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolCodeRun, Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
	_ = json.RawMessage(nil)
}

// BenchmarkStdioTrivial is `return 1 + 1` in a persistent goja
// environment through the front and a client over pipes, both in this
// process: the cost of the MCP layers on both ends, per transport.
func BenchmarkStdioTrivial(b *testing.B) {
	b.Run("sdk", func(b *testing.B) {
		st, ct := pipeTransports(b, func(r, w *os.File) mcp.Transport { return &mcp.IOTransport{Reader: r, Writer: w} })
		benchTrivial(b, benchFront(b, st, ct))
	})
}

func BenchmarkStdioTrivialOwn(b *testing.B) {
	st, ct := pipeTransports(b, func(r, w *os.File) mcp.Transport { return stdiox.Transport(r, w) })
	benchTrivial(b, benchFront(b, st, ct))
}

// BenchmarkHTTPTrivial is `return 1 + 1` (goja) through the
// streamable-HTTP front on a loopback listener, from sessions clients
// at once, each with its own session: what `codemode bench --via http
// --concurrency N` measures, in one process for a profile.
//
// With CODEMODE_BENCH_SSE=1 replies are event streams, as before
// PreferJSONResponse (for an A/B of it).
func BenchmarkHTTPTrivial(b *testing.B) {
	if os.Getenv("CODEMODE_BENCH_SSE") == "1" {
		preferJSONResponse = false
		b.Cleanup(func() { preferJSONResponse = true })
	}
	for _, mode := range []runtime.Mode{runtime.ModePerCall, runtime.ModePersistent} {
		for _, sessions := range []int{1, 2, 8} {
			b.Run(fmt.Sprintf("%s/sessions=%d", mode, sessions), func(b *testing.B) { benchHTTP(b, mode, sessions) })
		}
	}
}

func benchHTTP(b *testing.B, mode runtime.Mode, sessions int) {
	{
		{
			host := scope.NewHost("host")
			b.Cleanup(func() { host.Dispose() })
			reg := tools.New(tools.Options{})
			preset := host.Child(scope.KindPreset, "codemode")
			if _, err := codemode.Mount(reg, preset, codemode.Options{Engine: "goja", Mode: mode}); err != nil {
				b.Fatal(err)
			}
			srv, err := New(context.Background(), Options{Registry: reg, Preset: preset})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(srv.Close)
			hs := httptest.NewUnstartedServer(nil)
			hs.Listener = RawListener(hs.Listener) // as serve --listen
			h, err := srv.HTTPHandler(HTTPOptions{Fence: httpfence.Config{Listen: hs.Listener.Addr().String()}})
			if err != nil {
				b.Fatal(err)
			}
			hs.Config.Handler = h
			hs.Start()
			b.Cleanup(hs.Close)
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: sessions + 1}}
			var css []*mcp.ClientSession
			for range sessions {
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
					&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: hc}, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { cs.Close() })
				css = append(css, cs)
			}
			args := map[string]any{"code": "return 1 + 1"}
			var next atomic.Int64
			b.ResetTimer()
			var wg sync.WaitGroup
			for _, cs := range css {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for next.Add(1) <= int64(b.N) {
						res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: codemode.ToolCodeRun, Arguments: args})
						if err != nil || res.IsError {
							b.Error(err, res)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		}
	}
}

// BenchmarkStdioTrivialRaw is BenchmarkStdioTrivialOwn with the client's
// side reduced to writing the request's bytes and reading the reply's
// frame (what `codemode bench --client raw` does), so that its CPU and
// allocations are the server's: `return 1 + 1` in a persistent
// environment through the front over os.Pipe.
func BenchmarkStdioTrivialRaw(b *testing.B) {
	sr, cw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	cr, sw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	host := scope.NewHost("host")
	b.Cleanup(func() { host.Dispose() })
	reg := tools.New(tools.Options{})
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{Engine: "goja", Mode: runtime.ModePersistent}); err != nil {
		b.Fatal(err)
	}
	srv, err := New(context.Background(), Options{Registry: reg, Preset: preset})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	if _, err := srv.Connect(context.Background(), stdiox.Transport(sr, sw)); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cw.Close(); cr.Close() })
	out := stdiox.NewFrameReader(cr, 0)
	roundTrip := func(req string) []byte {
		if _, err := cw.WriteString(req + "\n"); err != nil {
			b.Fatal(err)
		}
		if req[len(req)-2] == '"' && !strings.Contains(req, `"id"`) {
			return nil // a notification
		}
		frame, err := out.Next()
		if err != nil {
			b.Fatal(err)
		}
		return frame
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	roundTrip(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"code_run","arguments":{"code":"return 1 + 1"}}}`
	for range 20 {
		roundTrip(call)
	}
	if r := roundTrip(call); !strings.Contains(string(r), `"value":2`) {
		b.Fatalf("reply %s", r)
	}
	b.ReportAllocs()
	for b.Loop() {
		roundTrip(call)
	}
}
