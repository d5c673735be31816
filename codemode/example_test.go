package codemode_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
)

// A preset with one MCP-style tool in the global layer: the model sees only
// code_run, and a program calls the hidden tool through the full pipeline.
func Example() {
	reg := tools.New(tools.Options{})
	host := scope.NewHost("host")
	defer host.Dispose()
	reg.Register(tools.GlobalLayer(), tools.Tool{
		Name:        "mcp__weather__forecast",
		Description: "Forecast for a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			var in struct{ City string }
			json.Unmarshal(e.Arguments(), &in)
			return tools.ValueResult(map[string]any{"city": in.City, "high": 21})
		},
	})
	preset := host.Child(scope.KindPreset, "codemode")
	if _, err := codemode.Mount(reg, preset, codemode.Options{}); err != nil {
		panic(err)
	}
	agent, _ := reg.NewAgent(preset, "agent-1")

	asm, _ := reg.Assemble(context.Background(), agent, tools.AssembleOptions{})
	for _, t := range asm.Tools {
		fmt.Println("model sees:", t.Name)
	}
	res := reg.Execute(context.Background(), tools.Input{
		CallID: "call_1",
		Name:   codemode.ToolCodeRun,
		Agent:  agent,
		Arguments: map[string]any{"code": `
const { hits } = await tools.code_tools_search({ query: "forecast" });
const f = await tools[hits[0].name]({ city: "Oslo" });
console.log("called", hits[0].name);
return f.high;`},
	})
	fmt.Println(res.TextOf())
	// Output:
	// model sees: code_run
	// called mcp__weather__forecast
	// 21
}
