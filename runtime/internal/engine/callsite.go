package engine

import "context"

type callLineKey struct{}

// WithCallLine records in a nested call's context the line of the user's
// source (from 1, after LineOffset) whose code made the call, for whoever
// shows the call to a person (an approval prompt). An engine that knows the
// line passes the derived context to Job.Call; one that does not passes
// its own, and the line reads as unknown.
func WithCallLine(ctx context.Context, line int) context.Context {
	return context.WithValue(ctx, callLineKey{}, line)
}

// CallLine is the line WithCallLine recorded, or 0.
func CallLine(ctx context.Context) int {
	n, _ := ctx.Value(callLineKey{}).(int)
	return n
}
