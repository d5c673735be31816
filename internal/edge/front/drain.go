package front

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
)

// A graceful shutdown must not lose a reply: the SDK's ServerSession.Close
// waits for the requests in flight but refuses their replies once it is
// called (jsonrpc2 fails writes on a closing connection). So Drain first
// waits, by our own count, until every request received has been answered
// on the wire, and closes the sessions only then.
//
// Over HTTP the count is exact and cheap: a POST's handler returns once
// every reply of its request is written, so requests in flight are POSTs
// in flight. Over stdio the replies are counted where they are written (a
// Writer around stdout that recognises a response frame by the SDK's
// encoding, `{"jsonrpc":"2.0","id":…,"result"` or `,"error"`) against the
// calls the middleware has seen finish.

// drainState is the part of a Server that Drain watches.
type drainState struct {
	draining atomic.Bool  // set by Drain: no new sessions, no new calls
	posts    atomic.Int64 // HTTP requests (other than GET) in flight
	running  atomic.Int64 // calls inside the middleware
	answered atomic.Int64 // calls that left the middleware: replies due
	written  atomic.Int64 // replies written on stdout (stdio only)
	stdio    atomic.Bool  // a stdio session is served: count written replies
	changed  chan struct{}
	once     sync.Once
}

func (d *drainState) ch() chan struct{} {
	d.once.Do(func() { d.changed = make(chan struct{}, 1) })
	return d.changed
}

// kick tells a waiting Drain to look again.
func (d *drainState) kick() {
	select {
	case d.ch() <- struct{}{}:
	default:
	}
}

// idle reports whether every request received has been answered.
func (d *drainState) idle() bool {
	if d.posts.Load() > 0 || d.running.Load() > 0 {
		return false
	}
	return !d.stdio.Load() || d.written.Load() >= d.answered.Load()
}

// Drain ends every session gracefully, for a shutdown. From the call on, a
// request that would open a session is refused (HTTP 503) and a call in an
// open session is answered with an error; Drain waits until every request
// received before has been answered on the wire, then ends the sessions,
// which releases their agents and persistent environments. It returns nil
// when all that is done, or ctx's error if ctx ends first: the sessions are
// ended all the same, and the replies of calls still running then are lost
// (the caller then releases the engine, which stops those programs).
func (s *Server) Drain(ctx context.Context) error {
	s.draining.Store(true)
	var err error
	for !s.idle() && err == nil {
		select {
		case <-s.ch():
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	closed := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		for ss := range s.mcp.Sessions() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = ss.Close()
			}()
		}
		wg.Wait()
		close(closed)
	}()
	if err != nil {
		return err
	}
	select {
	case <-closed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// replyCounter counts the response frames written through it.
type replyCounter struct {
	io.WriteCloser
	d *drainState
}

func (w *replyCounter) Write(p []byte) (int, error) {
	n, err := w.WriteCloser.Write(p)
	if err == nil {
		if k := responsesIn(p); k > 0 {
			w.d.written.Add(int64(k))
			w.d.kick()
		}
	}
	return n, err
}

// responsesIn returns how many JSON-RPC responses the frame holds: the SDK
// writes each message as one frame, in the field order of its wire struct
// (jsonrpc, id, method, params, result, error), and a batch as an array.
func responsesIn(frame []byte) int {
	frame = bytes.TrimSpace(frame)
	if len(frame) > 0 && frame[0] == '[' {
		var batch []struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(frame, &batch) != nil {
			return 0
		}
		n := 0
		for _, m := range batch {
			if len(m.ID) > 0 && m.Method == "" {
				n++
			}
		}
		return n
	}
	rest, ok := bytes.CutPrefix(frame, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok {
		return 0
	}
	// Skip the id: a number, or a string with escapes.
	i := 0
	if len(rest) > 0 && rest[0] == '"' {
		for i = 1; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' {
				i++
			}
		}
		i++
	} else {
		for i < len(rest) && rest[i] != ',' && rest[i] != '}' {
			i++
		}
	}
	if i > len(rest) {
		return 0
	}
	rest = rest[i:]
	if bytes.HasPrefix(rest, []byte(`,"result":`)) || bytes.HasPrefix(rest, []byte(`,"error":`)) {
		return 1
	}
	return 0
}
