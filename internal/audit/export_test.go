package audit

import "io"

// SetWriter replaces t's file, for tests of write failures.
func SetWriter(t *Trail, w io.WriteCloser) { t.w = w }
