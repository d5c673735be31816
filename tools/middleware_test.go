package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/codemode/codemode/tools/errs"
)

// TestMiddlewareSeesEveryCall: a middleware sees the calls the pipeline
// refuses as well as the ones it runs, with the ids before and the outcome
// after, and the tool resolved once next has run.
func TestMiddlewareSeesEveryCall(t *testing.T) {
	h := newHarness(t, Options{})
	h.r.OnGuard(func(e *Execution) string {
		if e.CallID() == "guarded" {
			return "no"
		}
		return ""
	})
	type seen struct {
		id, name         string
		resolvedBefore   bool
		resolvedAfter    bool
		args             string
		code             errs.Code
		finishedInsideMW bool
	}
	var got []seen
	h.r.Use(func(next Executor) Executor {
		return func(ctx context.Context, e *Execution) *Result {
			s := seen{id: e.CallID(), name: e.Name(), resolvedBefore: e.Resolved()}
			res := next(ctx, e)
			s.resolvedAfter, s.args, s.code, s.finishedInsideMW = e.Resolved(), e.ArgumentsText(), errs.CodeOf(res.Err), e.Finished()
			got = append(got, s)
			return res
		}
	})
	calls := []Input{
		{CallID: "ok", Name: "echo", Arguments: json.RawMessage(`{"text":"hi"}`)},
		{CallID: "unknown", Name: "nope"},
		{CallID: "invalid", Name: "echo", Arguments: json.RawMessage(`{"n":1}`)},
		{CallID: "guarded", Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)},
		{CallID: "huge name", Name: strings.Repeat("x", MaxNameBytes+1)},
	}
	want := []seen{
		{id: "ok", name: "echo", resolvedAfter: true, args: `{"text":"hi"}`},
		{id: "unknown", name: "nope", code: errs.CodeUnknownTool},
		{id: "invalid", name: "echo", resolvedAfter: true, args: `{"n":1}`, code: errs.CodeInvalidArguments},
		{id: "guarded", name: "echo", resolvedAfter: true, args: `{"text":"x"}`, code: errs.CodeDenied},
		{id: "huge name", name: strings.Repeat("x", MaxNameBytes+1), code: errs.CodeUnknownTool},
	}
	for _, in := range calls {
		h.r.Execute(context.Background(), in)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d calls, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if len(h.events) != len(calls) {
		t.Errorf("got %d tool/result events, want %d", len(h.events), len(calls))
	}
}

func TestMiddlewareChain(t *testing.T) {
	type key struct{}
	var order []string
	mw := func(name string) Middleware {
		return func(next Executor) Executor {
			return func(ctx context.Context, e *Execution) *Result {
				order = append(order, name+">")
				res := next(context.WithValue(ctx, key{}, name), e)
				order = append(order, "<"+name)
				return res
			}
		}
	}
	var ctxSeen any
	r := New(Options{})
	r.Register(GlobalLayer(), Tool{Name: "t", Handler: func(ctx context.Context, e *Execution) (*Result, error) {
		ctxSeen = ctx.Value(key{})
		return TextResult("body"), nil
	}})
	r.Use(mw("a"))
	removeB := r.Use(mw("b"))
	r.Execute(context.Background(), Input{CallID: "1", Name: "t"})
	if got, want := strings.Join(order, " "), "a> b> <b <a"; got != want {
		t.Errorf("got order %q, want %q (the first added is the outermost)", got, want)
	}
	if ctxSeen != "b" {
		t.Errorf("the body saw context value %v, want the innermost middleware's", ctxSeen)
	}
	removeB()
	removeB()
	order = nil
	r.Execute(context.Background(), Input{CallID: "2", Name: "t"})
	if got, want := strings.Join(order, " "), "a> <a"; got != want {
		t.Errorf("after remove: got %q, want %q", got, want)
	}
}

// A middleware that replaces the result, panics, or returns nothing: the
// caller gets a result either way, and a broken middleware fails closed.
func TestMiddlewareOutcomes(t *testing.T) {
	tests := []struct {
		name string
		mw   Middleware
		want errs.Code
		body bool
	}{
		{"replaces the result", func(next Executor) Executor {
			return func(ctx context.Context, e *Execution) *Result {
				next(ctx, e)
				return errorResult(errs.Errorf(errs.CodeDenied, "replaced"))
			}
		}, errs.CodeDenied, true},
		{"short-circuits", func(next Executor) Executor {
			return func(ctx context.Context, e *Execution) *Result { return TextResult("cached") }
		}, "", false},
		{"panics", func(next Executor) Executor {
			return func(ctx context.Context, e *Execution) *Result { panic("boom") }
		}, errs.CodeInternal, false},
		{"returns nil", func(next Executor) Executor {
			return func(ctx context.Context, e *Execution) *Result { return nil }
		}, errs.CodeInternal, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, Options{})
			h.r.Use(tt.mw)
			res := h.r.Execute(context.Background(), Input{CallID: "c", Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)})
			if got := errs.CodeOf(res.Err); got != tt.want {
				t.Fatalf("got %q (%v), want %q", got, res.Err, tt.want)
			}
			if ran := h.ran > 0; ran != tt.body {
				t.Errorf("body ran: %v, want %v", ran, tt.body)
			}
			if len(h.events) != 1 {
				t.Errorf("got %d tool/result events, want 1", len(h.events))
			}
		})
	}
}

// Use and remove while calls run: -race keeps it honest.
func TestMiddlewareConcurrentUse(t *testing.T) {
	h := newHarness(t, Options{})
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if res := h.r.Execute(context.Background(), Input{CallID: "c", Name: "echo", Arguments: json.RawMessage(`{"text":"x"}`)}); res.IsError {
					t.Error(res.Err)
					return
				}
			}
		}()
	}
	for range 200 {
		remove := h.r.Use(func(next Executor) Executor { return next })
		remove()
	}
	close(stop)
	wg.Wait()
}
