package tools_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/codemode/codemode/tools"
)

// A pre-execute listener denies one tool; the denied call skips the body,
// still passes post-execute, and reads "Error: <reason>".
func ExampleRegistry_Execute() {
	r := tools.New(tools.Options{})
	r.Register(tools.GlobalLayer(), tools.Tool{
		Name:        "delete_repo",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			return tools.TextResult("deleted"), nil
		},
	})
	r.OnPreExecute(func(ctx context.Context, e *tools.Execution, next func() tools.Decision) tools.Decision {
		if e.Name() == "delete_repo" {
			return tools.Deny{Reason: "repositories are read-only here"}
		}
		return next()
	})
	r.OnPostExecute(func(ctx context.Context, e *tools.Execution, res *tools.Result, next func() tools.PostDecision) tools.PostDecision {
		fmt.Println("post-execute saw error:", res.IsError)
		return next()
	})
	res := r.Execute(context.Background(), tools.Input{CallID: "c1", Name: "delete_repo", Arguments: map[string]any{"name": "x"}})
	fmt.Println(res.TextOf(), res.Err.Code)
	res = r.Execute(context.Background(), tools.Input{CallID: "c2", Name: "delete_repo", Arguments: map[string]any{}})
	fmt.Println(res.Err.Code)
	// Output:
	// post-execute saw error: true
	// Error: repositories are read-only here DENIED
	// INVALID_ARGUMENTS
}
