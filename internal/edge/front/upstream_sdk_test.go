package front

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/runtime"
	upstream "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The server is built on our patched copy of the go-sdk (internal/gosdk,
// PATCHES.md). These tests hold it to the unpatched SDK as released: a
// client built on github.com/modelcontextprotocol/go-sdk itself lists the
// tools and runs programs over stdio (our framing, as `codemode serve`
// runs) and over streamable HTTP, errors included.

func TestUnpatchedSDKClientOverStdio(t *testing.T) {
	srvIn, cliOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cliIn, srvOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	f := newHTTPFront(t, "r1", runtime.ModePerCall, HTTPOptions{})
	ss, err := f.srv.Connect(context.Background(), stdiox.Transport(srvIn, srvOut))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := upstream.NewClient(&upstream.Implementation{Name: "upstream-sdk", Version: "1"}, nil).
		Connect(context.Background(), &upstream.IOTransport{Reader: cliIn, Writer: cliOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	exerciseUpstreamClient(t, cs)
}

func TestUnpatchedSDKClientOverHTTP(t *testing.T) {
	f := newHTTPFront(t, "r1", runtime.ModePersistent, HTTPOptions{})
	cs, err := upstream.NewClient(&upstream.Implementation{Name: "upstream-sdk", Version: "1"}, nil).
		Connect(context.Background(), &upstream.StreamableClientTransport{Endpoint: f.endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	exerciseUpstreamClient(t, cs)
}

func exerciseUpstreamClient(t *testing.T, cs *upstream.ClientSession) {
	t.Helper()
	ctx := context.Background()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "code_run") {
		t.Fatalf("tools %v lack code_run", names)
	}
	for _, c := range []struct {
		code, want string
		isError    bool
	}{
		{`return [1, 2, 3].map(x => x * 2).join("+")`, "2+4+6", false},
		{`const s = "é✓\u2028"; return s + s.length`, "é✓\u20283", false},
		{`return 1 +`, "SYNTAX_ERROR", true},
		{`await tools.mcp__nope()`, "UNKNOWN_TOOL", true},
	} {
		res, err := cs.CallTool(ctx, &upstream.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": c.code}})
		if err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		var got strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*upstream.TextContent); ok {
				got.WriteString(tc.Text)
			}
		}
		if res.IsError != c.isError || !strings.Contains(got.String(), c.want) {
			t.Errorf("%s: isError %v, %q; want %v and %q", c.code, res.IsError, got.String(), c.isError, c.want)
		}
	}
}
