package front

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/runtime"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	tb.Helper()
	host := scope.NewHost("host")
	tb.Cleanup(func() { host.Dispose() })
	reg := tools.New(tools.Options{})
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{Engine: "goja", Mode: runtime.ModePersistent}); err != nil {
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
