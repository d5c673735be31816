package tools

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/codemode/codemode/tools/errs"
)

// Executor runs one call: it is what Execute runs after creating the
// call's Execution, and what a [Middleware] wraps.
type Executor func(ctx context.Context, e *Execution) *Result

// Middleware wraps the whole pipeline of Execute (the go-sdk's middleware
// shape). It sees every call, the ones the pipeline refuses included (an
// unknown name, invalid arguments, a denial), with the call's context and
// ids before the pipeline runs and its result after; it is the home of what
// must see them all: traces, metrics, audit lines.
//
// Before next, the Execution has its ids, name, agent and parent; the tool
// is resolved and the arguments snapshotted only once next has run (see
// [Execution.Resolved]). A middleware may derive the context it passes to
// next, and may replace the result; it calls next at most once and returns
// a non-nil result. A panic, or a nil result, becomes an INTERNAL error
// result: the call fails closed. Middleware runs on the caller's goroutine.
// The Execution is finalized (its token invalidated, the tool/result event
// sent) after the outermost middleware returns, so nothing reports the call
// done before every middleware has seen its result.
type Middleware func(next Executor) Executor

// middlewares is the registry's chain: the list, and the composed Executor
// cached until the list changes.
type middlewares struct {
	mu    sync.Mutex
	list  []*Middleware
	chain atomic.Pointer[Executor] // nil: no middleware
}

// Use adds mw around the pipeline. The first added is the outermost. The
// returned remove takes it out again (idempotent); calls already running
// keep the chain they started with.
func (r *Registry) Use(mw Middleware) (remove func()) {
	p := &mw
	m := &r.mw
	m.mu.Lock()
	m.list = append(m.list[:len(m.list):len(m.list)], p)
	r.compose()
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			defer m.mu.Unlock()
			next := make([]*Middleware, 0, len(m.list))
			for _, q := range m.list {
				if q != p {
					next = append(next, q)
				}
			}
			m.list = next
			r.compose()
		})
	}
}

// compose rebuilds the cached chain; r.mw.mu is held.
func (r *Registry) compose() {
	if len(r.mw.list) == 0 {
		r.mw.chain.Store(nil)
		return
	}
	var ex Executor = r.pipeline
	for i := len(r.mw.list) - 1; i >= 0; i-- {
		ex = guardMiddleware((*r.mw.list[i])(ex))
	}
	r.mw.chain.Store(&ex)
}

// guardMiddleware turns a middleware's panic or nil result into an
// INTERNAL error result.
func guardMiddleware(ex Executor) Executor {
	return func(ctx context.Context, e *Execution) (res *Result) {
		defer func() {
			if p := recover(); p != nil {
				res = errorResult(errs.Errorf(errs.CodeInternal, "middleware panicked: %v", p))
			}
		}()
		if res = ex(ctx, e); res == nil {
			res = errorResult(errs.Errorf(errs.CodeInternal, "middleware returned no result"))
		}
		return res
	}
}

// run is the whole call: the middleware chain, or the bare pipeline.
func (r *Registry) run(ctx context.Context, e *Execution) *Result {
	if c := r.mw.chain.Load(); c != nil {
		return (*c)(ctx, e)
	}
	return r.pipeline(ctx, e)
}

// Resolved reports whether the pipeline resolved the call's tool and
// snapshotted its arguments (always, once a call got past step 2).
func (e *Execution) Resolved() bool { return e.info != nil }

// String identifies the call for logs: its id and tool.
func (e *Execution) String() string { return fmt.Sprintf("%s(%s)", e.name, e.callID) }
