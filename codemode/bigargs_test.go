package codemode

import (
	"context"
	"encoding/json"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"

	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// TestOversizedCodeRunRefusedUnread: a code_run whose arguments are over
// maxArgumentBytes (the hostile suite's 12 MB program) is refused with
// ARGUMENTS_TOO_LARGE as an ordinary decided call — its result event, the
// audit line, is there — from the raw arguments' length alone: the program
// is never decoded nor copied, so the call allocates a tiny fraction of
// the 12 MB (a decode would allocate at least the 12 MB string). Over
// stdio every later request of the session waits behind this call.
func TestOversizedCodeRunRefusedUnread(t *testing.T) {
	w := newWorld(t, false, Options{})
	reg := w.host.Registry
	var mu sync.Mutex
	var events []tools.ResultEvent
	defer reg.OnResult(func(ev tools.ResultEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	})()
	args := json.RawMessage(`{"code":"` + strings.Repeat("x=1;", 3_000_000) + `"}`)
	in := tools.Input{CallID: "big", Name: ToolCodeRun, Arguments: args, Agent: w.agent}
	ctx := context.Background()
	reg.Execute(ctx, in) // first-call setup out of the figure
	var m0, m1 goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&m0)
	res := reg.Execute(ctx, in)
	goruntime.ReadMemStats(&m1)
	if !res.IsError || res.Err.Code != errs.CodeArgumentsTooLarge {
		t.Fatalf("got %v, want ARGUMENTS_TOO_LARGE", res.Err)
	}
	if got := res.Err.Info["bytes"]; got != len(args) {
		t.Errorf("info.bytes = %v, want %d", got, len(args))
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 256<<10 {
		t.Errorf("refusing %d bytes of arguments allocated %d bytes, want ≤ 256 KiB (decoded or copied?)", len(args), alloc)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 2 || events[1].Code != errs.CodeArgumentsTooLarge || events[1].Name != ToolCodeRun {
		t.Errorf("result events %+v, want two ARGUMENTS_TOO_LARGE for code_run", events)
	}
}
