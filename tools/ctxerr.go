package tools

import "context"

var (
	errDeadline = context.DeadlineExceeded
	errCanceled = context.Canceled
)
