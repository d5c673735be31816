package front

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// Progress notifications carry a run's console output to the client as it
// happens. A program can print far faster than a client can read (150,000
// lines in 3 s was seen), so they are coalesced: at most one notification
// per progressInterval, carrying every line printed since the last one, cut
// to progressMaxBytes. The run's result carries the full (budgeted) output
// either way.
const (
	progressInterval = 50 * time.Millisecond
	progressMaxBytes = 16 << 10
)

// progress is the sender of one call's notifications.
type progress struct {
	ss  *mcp.ServerSession
	ctx context.Context
	tok any

	mu      sync.Mutex
	n       int       // notifications sent
	last    time.Time // when the last one was sent
	pending []string  // lines not sent yet
	size    int       // bytes in pending
	dropped int       // lines past progressMaxBytes since the last send
	timer   *time.Timer
	done    bool
}

func newProgress(ctx context.Context, ss *mcp.ServerSession, tok any) *progress {
	return &progress{ss: ss, ctx: context.WithoutCancel(ctx), tok: tok}
}

// line queues one line and sends it, with whatever is queued, when the
// interval allows; otherwise a timer sends it when it does.
func (p *progress) line(level, text string) {
	if level != "log" && level != "info" {
		text = "[" + level + "] " + text
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	if p.size+len(text) > progressMaxBytes {
		p.dropped++
	} else {
		p.pending = append(p.pending, text)
		p.size += len(text) + 1
	}
	wait := progressInterval - time.Since(p.last)
	if wait <= 0 {
		p.sendLocked()
		return
	}
	if p.timer == nil {
		var t *time.Timer
		t = time.AfterFunc(wait, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.timer == t && !p.done { // not stopped by a send in between
				p.timer = nil
				p.sendLocked()
			}
		})
		p.timer = t
	}
}

// finish sends what is queued and stops: no notification follows the
// result.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sendLocked()
	p.done = true
}

func (p *progress) sendLocked() {
	if p.timer != nil {
		p.timer.Stop() // what it would have sent goes now
		p.timer = nil
	}
	if len(p.pending) == 0 && p.dropped == 0 {
		return
	}
	msg := strings.Join(p.pending, "\n")
	if p.dropped > 0 {
		msg += fmt.Sprintf("\n[%d more lines not shown here; the result has the output]", p.dropped)
	}
	p.pending, p.size, p.dropped = p.pending[:0], 0, 0
	p.n++
	p.last = time.Now()
	// Best effort: a client that went away must not fail the run.
	_ = p.ss.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.tok, Progress: float64(p.n), Message: msg})
}
