package upstream

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
)

// maxLine bounds one logged stderr line; longer ones are split.
const maxLine = 4096

// lineWriter logs what a child writes to its stderr, a line per record,
// and tells onLine (if set) each non-blank line.
type lineWriter struct {
	log    *slog.Logger
	onLine func(string)
	mu     sync.Mutex
	buf    []byte
}

func newLineWriter(log *slog.Logger) *lineWriter { return &lineWriter{log: log} }

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			if len(w.buf) >= maxLine {
				w.emit(w.buf[:maxLine])
				w.buf = w.buf[maxLine:]
				continue
			}
			break
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) == 0 {
		w.buf = nil // let a large buffer go
	}
	return len(p), nil
}

// Flush logs a trailing partial line.
func (w *lineWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.emit(w.buf)
		w.buf = nil
	}
}

func (w *lineWriter) emit(line []byte) {
	line = bytes.TrimRight(line, "\r")
	w.log.LogAttrs(context.Background(), slog.LevelInfo, "upstream stderr", slog.String("line", string(line)))
	if w.onLine != nil && len(bytes.TrimSpace(line)) > 0 {
		w.onLine(string(line))
	}
}
