package hostile

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// answer is what one code_run came back with.
type answer struct {
	Code          string          // "OK", an error code, or "TRANSPORT" when no answer came
	Err           string          // the transport error, or the error's message (cut)
	Value         json.RawMessage // the program's value, if any
	Text          string          // everything the client was shown: value, error, logs, progress
	Bytes         int             // the result's JSON size plus the progress notifications'
	Progress      int             // progress notifications received
	Elapsed       time.Duration
	ResultPayload int // the result's JSON size alone
}

// progressSink counts the progress notifications a client gets, by token.
type progressSink struct {
	mu     sync.Mutex
	bytes  map[string]int
	count  map[string]int
	sample map[string]*strings.Builder
}

func newProgressSink() *progressSink {
	return &progressSink{bytes: map[string]int{}, count: map[string]int{}, sample: map[string]*strings.Builder{}}
}

func (p *progressSink) handle(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
	b, _ := json.Marshal(r.Params)
	tok := fmt.Sprint(r.Params.ProgressToken)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytes[tok] += len(b) + 60 // the JSON-RPC envelope around params
	p.count[tok]++
	sb := p.sample[tok]
	if sb == nil {
		sb = &strings.Builder{}
		p.sample[tok] = sb
	}
	if sb.Len() < 1<<16 {
		sb.WriteString(r.Params.Message)
		sb.WriteByte('\n')
	}
}

func (p *progressSink) take(tok string) (int, int, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, n := p.bytes[tok], p.count[tok]
	s := ""
	if sb := p.sample[tok]; sb != nil {
		s = sb.String()
	}
	delete(p.bytes, tok)
	delete(p.count, tok)
	delete(p.sample, tok)
	return b, n, s
}

var tokens atomic.Int64

// newClient returns an MCP client whose sessions report progress to sink.
func newClient(sink *progressSink) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "codemode-hostile", Version: "1"},
		&mcp.ClientOptions{ProgressNotificationHandler: sink.handle})
}

// codeRun runs code in s with a progress token, as a real client would
// (so console lines stream as progress notifications), and waits at most
// wait for the answer.
func codeRun(ctx context.Context, s *mcp.ClientSession, sink *progressSink, code string, wait time.Duration) answer {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	tok := fmt.Sprintf("h%d", tokens.Add(1))
	p := &mcp.CallToolParams{Name: "code_run", Arguments: map[string]any{"code": code}}
	p.SetProgressToken(tok)
	start := time.Now()
	res, err := s.CallTool(ctx, p)
	a := answer{Elapsed: time.Since(start)}
	pb, pn, ptext := sink.take(tok)
	a.Progress = pn
	if err != nil {
		a.Code, a.Err = "TRANSPORT", cut(err.Error(), 300)
		a.Bytes = pb
		return a
	}
	raw, _ := json.Marshal(res)
	a.ResultPayload = len(raw)
	a.Bytes = len(raw) + pb
	a.Text = string(raw) + ptext
	a.Code = "OK"
	if res.IsError {
		a.Code = "ERROR"
		if m, ok := res.Meta["codemode/error"].(map[string]any); ok {
			if c, ok := m["code"].(string); ok {
				a.Code = c
			}
			if msg, ok := m["message"].(string); ok {
				a.Err = cut(msg, 300)
			}
		}
		return a
	}
	if res.StructuredContent != nil {
		var out struct {
			Value json.RawMessage `json:"value"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal(b, &out) == nil {
			a.Value = out.Value
		}
	}
	return a
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
