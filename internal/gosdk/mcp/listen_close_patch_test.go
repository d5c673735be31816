package mcp

import (
	"context"
	"testing"
	"time"
)

// TestListenAfterCloseBegan: a subscriptions/listen whose handler starts
// after ServerSession.Close took its snapshot of the listens to cancel
// (here: closing set by hand, as Close sets it) fails at once, and Close
// returns; without the codemode patch the handler parks on ctx.Done with
// nothing left to cancel it and Close waits for it forever (seen as a hang
// of internal/edge/upstream's TestCallsWaitForARestart, ~1 run in 40 under
// -race).
func TestListenAfterCloseBegan(t *testing.T) {
	ctx := context.Background()
	s := NewServer(&Implementation{Name: "s", Version: "v"}, nil)
	AddTool(s, &Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *CallToolRequest, map[string]any) (*CallToolResult, any, error) {
		return &CallToolResult{}, nil, nil
	})
	ct, st := NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewClient(&Implementation{Name: "c", Version: "v"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	ss.mu.Lock()
	ss.closing = true
	ss.mu.Unlock()

	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	call := cs.getConn().Call(wait, methodSubscriptionsListen, &SubscriptionsListenParams{Notifications: &NotificationSubscriptions{ToolsListChanged: true}})
	if err := call.Await(wait, &SubscriptionsListenResult{}); err == nil {
		t.Fatal("the listen succeeded; want it refused (the session is closing)")
	} else if wait.Err() != nil {
		t.Fatalf("the listen parked until the deadline: %v", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- ss.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("ServerSession.Close did not return")
	}
}
