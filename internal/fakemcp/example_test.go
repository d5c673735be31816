package fakemcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode/codemode/internal/fakemcp"
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
