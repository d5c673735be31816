package runtime

import (
	"fmt"
	"strings"
	"time"

	"github.com/codemode/codemode/internal/human"
	"github.com/codemode/codemode/tools/errs"
)

// A program's author is a model: a failure the runtime's limits caused
// must say which limit and, for a timeout, where the program was, and it
// must read the same on every engine (the engines word their own failures
// differently). explain rewrites those failures here, above the engines.

// span is one nested call, from the program's call to its return.
type span struct {
	n          int64 // the program's n-th call, from 1
	name       string
	start, end time.Time // end is zero while the call is in flight
}

// open records the n-th nested call as in flight.
func (r *recorder) open(n int64, name string) *span {
	sp := &span{n: n, name: name, start: time.Now()}
	r.mu.Lock()
	r.spans = append(r.spans, sp)
	r.mu.Unlock()
	return sp
}

// close records that sp returned.
func (r *recorder) close(sp *span) {
	r.mu.Lock()
	sp.end = time.Now()
	r.mu.Unlock()
}

// pendingAt lists the calls that were in flight at t: started before it,
// and not returned before it (a call cut short by the deadline returns just
// after it; one whose body ignores cancellation has not returned at all).
func (r *recorder) pendingAt(t time.Time) []span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []span
	for _, sp := range r.spans {
		if sp.start.Before(t) && (sp.end.IsZero() || !sp.end.Before(t)) {
			out = append(out, *sp)
		}
	}
	return out
}

// The messages of limits the engines enforce, one wording for every engine.
const (
	msgNeverSettles   = "the program's promise can never settle: it awaits something that nothing will resolve (no tool call is in flight and no timer is pending)"
	msgStackOverflow  = "the program recursed too deep: the engine's call stack overflowed (make the recursion a loop, or recurse less deeply)"
	prefixNeverSettle = "the program's promise can never settle"
)

// explain returns e, or the same failure worded for the program's author
// when one of the limits caused it: TIMEOUT at the program's deadline
// (which limit, and what the program was waiting for), MEMORY_LIMIT,
// STACK_OVERFLOW, and a promise that can never settle. server is the
// runtime's own budget, to tell a limit the request lowered from the
// server's.
func (r *recorder) explain(e *errs.Error, server Limits, deadline time.Time, expired bool) *errs.Error {
	if e == nil {
		return nil
	}
	switch {
	case e.Code == errs.CodeTimeout && (expired || !time.Now().Before(deadline)):
		return r.timeout(e, server, deadline)
	case e.Code == errs.CodeMemoryLimit:
		return reworded(e, fmt.Sprintf("the program exceeded its memory budget of %s: hold less at once (process results as they arrive, keep summaries rather than whole responses)", human.Size(r.limits.MemoryBytes)), "memory")
	case e.Code == errs.CodeStackOverflow:
		return reworded(e, msgStackOverflow, "stack")
	case e.Code == errs.CodeRuntimeError && strings.HasPrefix(e.Message, prefixNeverSettle):
		return reworded(e, msgNeverSettles, "")
	}
	return e
}

// timeout words a program's TIMEOUT: the limit that ended it, and the
// nested calls it was waiting for, or that it was running its own code.
func (r *recorder) timeout(e *errs.Error, server Limits, deadline time.Time) *errs.Error {
	budget := deadline.Sub(r.start)
	var limit string
	switch {
	case r.limits.Timeout < server.Timeout && budget >= r.limits.Timeout-time.Millisecond:
		limit = fmt.Sprintf("its time limit of %s (set by timeoutMs; the server allows up to %s)", human.Duration(r.limits.Timeout), human.Duration(server.Timeout))
	case budget < r.limits.Timeout-time.Millisecond:
		limit = fmt.Sprintf("its caller's deadline, %s after it started", human.Duration(budget))
	default:
		limit = fmt.Sprintf("its time limit of %s", human.Duration(r.limits.Timeout))
	}
	pending := r.pendingAt(deadline)
	var where string
	names := make([]string, 0, len(pending))
	switch len(pending) {
	case 0:
		where = "it was running its own code or waiting for its timers, not for any tool (a loop that does not end, a timer due after the deadline, or more work than one program can do in time)"
	case 1:
		p := pending[0]
		where = fmt.Sprintf("it was waiting for tools[%q] (nested call %d, started %s into the program)", p.name, p.n, human.Duration(p.start.Sub(r.start)))
	default:
		var parts []string
		for i, p := range pending {
			if i == 3 {
				parts = append(parts, fmt.Sprintf("and %d more", len(pending)-3))
				break
			}
			parts = append(parts, fmt.Sprintf("tools[%q] (call %d, started %s in)", p.name, p.n, human.Duration(p.start.Sub(r.start))))
		}
		where = fmt.Sprintf("it was waiting for %d nested calls: %s", len(pending), strings.Join(parts, ", "))
	}
	for _, p := range pending {
		names = append(names, p.name)
	}
	msg := fmt.Sprintf("the program ran out of time at %s; %s. Do less per program: split the work over several code_run calls, or make fewer or faster calls", limit, where)
	c := reworded(e, msg, "timeout")
	c.Info["timeoutMs"] = r.limits.Timeout.Milliseconds()
	if len(names) > 0 {
		c.Info["pending"] = names
	}
	return c
}

// reworded copies e with msg as its message and Info["limit"] set (when
// limit is not empty). The engine's own message is dropped: it is what
// differs between engines.
func reworded(e *errs.Error, msg, limit string) *errs.Error {
	c := *e
	c.Info = make(map[string]any, len(e.Info)+2)
	for k, v := range e.Info {
		c.Info[k] = v
	}
	if limit != "" {
		c.Info["limit"] = limit
	}
	c.Message = msg
	return &c
}
