package fakemcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode/codemode/internal/gosdk/mcp"

	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/internal/dev/fixture"
)

// The fake server in-process, over the SDK's in-memory transports.
func ExampleNewServer() {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := fakemcp.NewServer().Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ticker", Arguments: map[string]any{"symbol": "ACME"}})
	if err != nil {
		panic(err)
	}
	out, _ := json.Marshal(res.StructuredContent)
	fmt.Println(string(out))
	// Output: {"currency":"USD","price":211.91,"symbol":"ACME"}
}

// A recording served in-process: a test of an agent or a program runs
// against what the real server once answered, offline.
func ExampleNewFixtureServer() {
	fx, err := fixture.Parse([]byte(`-- fixture.json --
{"format": "codemode.fixture/v1", "server": "weather", "redact": []}
-- tools.json --
[{"name": "forecast", "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}]
-- calls/0001-forecast.json --
{"tool": "forecast", "arguments": {"city": "Oslo"},
 "result": {"content": [{"type": "text", "text": "snow"}]}, "atMs": 0, "ms": 120}
`))
	if err != nil {
		panic(err)
	}
	srv, err := fakemcp.NewFixtureServer(fx, fakemcp.Options{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	for _, city := range []string{"Oslo", "Rome"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": city}})
		if err != nil {
			panic(err)
		}
		fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// false snow
	// true fixture: no recorded call of forecast matches the arguments {"city":"Rome"}; the nearest recorded arguments (call 1) are {"city":"Oslo"}; difference: /city: got "Rome", recorded "Oslo" (replay with --match tool to answer any call of a tool with its recorded calls)
}
