package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/runtime"
)

// mcpTarget measures what an MCP client sees: each agent is a client
// session with its own `codemode serve` process over stdio (one stdio
// session per process), whose code_run nested calls go to the embedded
// default's fake MCP server (another process).
type mcpTarget struct {
	sessions []*mcp.ClientSession // the SDK's client (ClientSDK)
	raw      []*rawClient         // or ours (ClientRaw)
	stderr   []*tailBuffer
	procs    []*exec.Cmd
	cleanup  func()
}

func (t *mcpTarget) processes() []*exec.Cmd { return t.procs }

// newMCPTarget starts the processes; config, if not empty, is the
// --config they get (else the embedded default). client is ClientSDK
// (or "") or ClientRaw.
func newMCPTarget(exe, engine, mode string, agents int, config, client string) (*mcpTarget, error) {
	m := string(runtime.ModePerCall)
	if mode == ModePersistent {
		m = string(runtime.ModePersistent)
	}
	args := []string{"serve", "--engine", engine, "--mode", m}
	if config != "" {
		args = append(args, "--config", config)
	}
	t, err := startStdioTarget(client, agents, func() *exec.Cmd { return exec.Command(exe, args...) })
	if err != nil {
		return nil, fmt.Errorf("starting %s serve: %w", exe, err)
	}
	return t, nil
}

// startStdioTarget starts agents processes made by command, each with a
// session of the given client over its stdio.
func startStdioTarget(client string, agents int, command func() *exec.Cmd) (*mcpTarget, error) {
	t := &mcpTarget{}
	var sdk *mcp.Client
	if client != ClientRaw {
		sdk = mcp.NewClient(&mcp.Implementation{Name: "codemode-bench", Version: "1"}, nil)
	}
	for range agents {
		cmd := command()
		tail := &tailBuffer{max: 4096}
		cmd.Stderr = tail
		// Connect has its own context: the session must outlive it.
		if sdk != nil {
			s, err := sdk.Connect(context.Background(), &stdiox.CommandTransport{Cmd: cmd}, nil)
			if err != nil {
				t.close()
				return nil, fmt.Errorf("%w%s", err, tail.suffix())
			}
			t.sessions = append(t.sessions, s)
		} else {
			c, err := startRawClient(context.Background(), cmd)
			if err != nil {
				t.close()
				return nil, fmt.Errorf("%w%s", err, tail.suffix())
			}
			t.raw = append(t.raw, c)
		}
		t.stderr = append(t.stderr, tail)
		t.procs = append(t.procs, cmd)
	}
	return t, nil
}

func (t *mcpTarget) run(ctx context.Context, agent int, code string) (json.RawMessage, error) {
	var v json.RawMessage
	var err error
	if t.raw != nil {
		v, err = t.raw[agent].codeRun(ctx, code)
	} else {
		v, err = callCodeRun(ctx, t.sessions[agent], code)
	}
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, t.stderr[agent].suffix())
	}
	return v, nil
}

// callCodeRun runs code with code_run in session s and returns the
// program's value.
func callCodeRun(ctx context.Context, s *mcp.ClientSession, code string) (json.RawMessage, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: codemode.ToolCodeRun, Arguments: map[string]any{"code": code}})
	if err != nil {
		return nil, fmt.Errorf("code_run over MCP: %w", err)
	}
	if res.IsError {
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return nil, fmt.Errorf("code_run: %s", strings.Join(texts, "\n"))
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("code_run over MCP: structured content: %w", err)
	}
	return codeRunValue(structured)
}

func (t *mcpTarget) close() {
	for _, s := range t.sessions {
		s.Close() // closes stdin, then waits for the process (SIGTERM after 5s)
	}
	for _, c := range t.raw {
		c.close() // the same
	}
	if t.cleanup != nil {
		t.cleanup()
	}
}

// httpTarget measures a running server over streamable HTTP: each agent is
// a client session of its own (through a fleet's nginx, sessions spread
// over the replicas as new sessions do).
type httpTarget struct {
	sessions []*mcp.ClientSession
}

func newHTTPTarget(url, engine, mode string, agents int) (*httpTarget, error) {
	want := string(runtime.ModePerCall)
	if mode == ModePersistent {
		want = string(runtime.ModePersistent)
	}
	t := &httpTarget{}
	client := mcp.NewClient(&mcp.Implementation{Name: "codemode-bench", Version: "1"}, nil)
	// One HTTP client for every session: connections are reused, as a
	// real client's would be.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: agents + 1}}
	for range agents {
		s, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		if err != nil {
			t.close()
			return nil, fmt.Errorf("connecting to %s: %w", url, err)
		}
		t.sessions = append(t.sessions, s)
	}
	v, err := callCodeRun(context.Background(), t.sessions[0], `const d = await tools.code_debug({}); return { engine: d.engine, mode: d.mode }`)
	if err != nil {
		t.close()
		return nil, fmt.Errorf("asking %s for its engine and mode: %w", url, err)
	}
	var got struct{ Engine, Mode string }
	if err := json.Unmarshal(v, &got); err != nil || got.Engine != engine || got.Mode != want {
		t.close()
		return nil, fmt.Errorf("the server at %s runs %s in %s mode (%s), not %s in %s mode", url, got.Engine, got.Mode, v, engine, want)
	}
	return t, nil
}

func (t *httpTarget) run(ctx context.Context, agent int, code string) (json.RawMessage, error) {
	return callCodeRun(ctx, t.sessions[agent], code)
}

func (t *httpTarget) close() {
	for _, s := range t.sessions {
		s.Close()
	}
}

// tailBuffer keeps the last max bytes written to it: a child's stderr, for
// error messages.
type tailBuffer struct {
	max int
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

func (b *tailBuffer) suffix() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := string(bytes.TrimSpace(b.buf))
	if s == "" {
		return ""
	}
	return " (stderr: " + s + ")"
}
