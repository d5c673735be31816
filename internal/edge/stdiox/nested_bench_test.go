package stdiox_test

import (
	"context"
	"os"
	"testing"

	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// BenchmarkTickerCall is one call of the fake server's ticker from an SDK
// client, both ends in this process over os.Pipe: what a nested call to a
// stdio upstream costs in the MCP layers, per framing.
func BenchmarkTickerCall(b *testing.B) {
	for _, tc := range []struct {
		name string
		mk   func(r, w *os.File) mcp.Transport
	}{
		{"sdk", func(r, w *os.File) mcp.Transport { return &mcp.IOTransport{Reader: r, Writer: w} }},
		{"stdiox", func(r, w *os.File) mcp.Transport { return &stdiox.IOTransport{Reader: r, Writer: w} }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sr, cw, _ := os.Pipe()
			cr, sw, _ := os.Pipe()
			ctx := context.Background()
			ss, err := fakemcp.NewServer().Connect(ctx, tc.mk(sr, sw), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ss.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, tc.mk(cr, cw), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := map[string]any{"symbol": "S1"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ticker", Arguments: args}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
