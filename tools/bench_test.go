package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkExecute: a no-op tool through the full pipeline with one
// pre-execute listener and one guard.
//
//	go test -run '^$' -bench BenchmarkExecute -benchmem ./tools
func BenchmarkExecute(b *testing.B) {
	r := New(Options{})
	r.Register(GlobalLayer(), Tool{Name: "noop", Handler: func(ctx context.Context, e *Execution) (*Result, error) { return nil, nil }})
	r.OnPreExecute(func(ctx context.Context, e *Execution, next func() Decision) Decision { return next() })
	r.OnGuard(func(e *Execution) string { return "" })
	args := json.RawMessage(`{}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Execute(ctx, Input{CallID: "c", Name: "noop", Arguments: args}); res.IsError {
			b.Fatal(res.Err)
		}
	}
}

// BenchmarkExecuteValidated is the same with a schema that must be checked
// ({text: string}, required, no extra properties).
func BenchmarkExecuteValidated(b *testing.B) {
	r := New(Options{})
	r.Register(GlobalLayer(), echoTool())
	r.OnPreExecute(func(ctx context.Context, e *Execution, next func() Decision) Decision { return next() })
	r.OnGuard(func(e *Execution) string { return "" })
	args := json.RawMessage(`{"text":"hello"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Execute(ctx, Input{CallID: "c", Name: "echo", Arguments: args}); res.IsError {
			b.Fatal(res.Err)
		}
	}
}

// BenchmarkExecuteMiddleware is BenchmarkExecute under 0, 1 and 3
// pass-through middlewares: what a hook around every call costs.
//
//	go test -run '^$' -bench BenchmarkExecuteMiddleware -benchmem ./tools
func BenchmarkExecuteMiddleware(b *testing.B) {
	for _, n := range []int{0, 1, 3} {
		b.Run(fmt.Sprintf("middlewares=%d", n), func(b *testing.B) {
			r := New(Options{})
			r.Register(GlobalLayer(), Tool{Name: "noop", Handler: func(ctx context.Context, e *Execution) (*Result, error) { return nil, nil }})
			for range n {
				r.Use(func(next Executor) Executor {
					return func(ctx context.Context, e *Execution) *Result { return next(ctx, e) }
				})
			}
			args := json.RawMessage(`{}`)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if res := r.Execute(ctx, Input{CallID: "c", Name: "noop", Arguments: args}); res.IsError {
					b.Fatal(res.Err)
				}
			}
		})
	}
}
