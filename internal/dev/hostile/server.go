package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codemode/codemode/internal/edge/stdiox"
	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// Transports the harness drives.
const (
	Stdio   = "stdio" // codemode serve, one client over stdin/stdout
	HTTP    = "http"  // codemode serve --listen, a session per client
	RunJSON = "run"   // codemode run --json, a process per program
)

// Build compiles codemode into dir and returns the binary's path. root is
// the module's root directory.
func Build(root, dir string) (string, error) {
	exe := filepath.Join(dir, "codemode")
	cmd := exec.Command("go", "build", "-o", exe, "./cmd/codemode")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/codemode: %v\n%s", err, out)
	}
	return exe, nil
}

// settings are what every server of a run shares.
type settings struct {
	exe         string
	dir         string // scratch directory
	memory      int64  // per-run memory budget, bytes
	timeout     time.Duration
	resultBytes int64 // maxResultBytes and maxLogBytes each
}

// writeConfig writes a codemode.json for engine and case c and returns its
// path.
func (st *settings) writeConfig(name, engine string, c *Case) (string, error) {
	server := map[string]any{"command": st.exe, "args": []string{"fakemcp"}}
	cm := map[string]any{
		"engine":         engine,
		"memory":         st.memory,
		"timeout":        st.timeout.String(),
		"maxResultBytes": st.resultBytes,
		"maxLogBytes":    st.resultBytes,
		"drainTimeout":   "1s",
	}
	if c != nil {
		if c.Mode != "" {
			cm["mode"] = c.Mode
		}
		if c.Timeout > 0 {
			cm["timeout"] = c.Timeout.String()
		}
		for k, v := range c.Config {
			cm[k] = v
		}
		for k, v := range c.Server {
			server[k] = v
		}
	}
	b, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"fake": server}, "codemode": cm}, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(st.dir, name+".json")
	return path, os.WriteFile(path, b, 0o644)
}

// server is a running `codemode serve`.
type server struct {
	transport string
	cmd       *exec.Cmd
	pid       int
	url       string // HTTP
	sink      *progressSink
	client    *mcp.Client
	stdio     *mcp.ClientSession // the stdio session, shared by every caller
	sessions  []*mcp.ClientSession
	stderr    *tail
	exited    chan struct{} // HTTP: closed when the process is gone
}

// startServer starts `codemode serve` with config over transport.
func startServer(ctx context.Context, exe, config, transport string) (*server, error) {
	s := &server{transport: transport, sink: newProgressSink(), stderr: &tail{max: 8192}}
	s.client = newClient(s.sink)
	switch transport {
	case Stdio:
		cmd := exec.Command(exe, "serve", "--config", config)
		cmd.Stderr = s.stderr
		sess, err := s.client.Connect(ctx, &stdiox.CommandTransport{Cmd: cmd, Terminate: 2 * time.Second}, nil)
		if err != nil {
			return nil, fmt.Errorf("starting serve (stdio): %w%s", err, s.stderr.suffix())
		}
		s.cmd, s.pid, s.stdio = cmd, cmd.Process.Pid, sess
		return s, nil
	case HTTP:
		cmd := exec.Command(exe, "serve", "--listen", "127.0.0.1:0", "--config", config)
		pr, pw := io.Pipe()
		cmd.Stderr = io.MultiWriter(s.stderr, pw)
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		s.cmd, s.pid, s.exited = cmd, cmd.Process.Pid, make(chan struct{})
		go func() { _ = cmd.Wait(); pw.Close(); close(s.exited) }()
		found := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				if _, url, ok := strings.Cut(sc.Text(), "serving MCP at "); ok {
					found <- strings.TrimSpace(url)
					break
				}
			}
			_, _ = io.Copy(io.Discard, pr)
		}()
		select {
		case s.url = <-found:
			return s, nil
		case <-s.exited:
			return nil, fmt.Errorf("serve --listen exited at start%s", s.stderr.suffix())
		case <-time.After(30 * time.Second):
			s.close()
			return nil, fmt.Errorf("serve --listen: no address in 30s%s", s.stderr.suffix())
		}
	}
	return nil, fmt.Errorf("unknown transport %q", transport)
}

// session returns a client session: over stdio the one session (calls in
// it run concurrently), over HTTP a new one.
func (s *server) session(ctx context.Context) (*mcp.ClientSession, error) {
	if s.transport == Stdio {
		return s.stdio, nil
	}
	hc := &http.Client{Transport: &http.Transport{}}
	sess, err := s.client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		return nil, err
	}
	s.sessions = append(s.sessions, sess)
	return sess, nil
}

func (s *server) alive() bool { return alive(s.pid) }

// close ends the sessions and the process (SIGTERM, then SIGKILL after
// 3 s) and waits for it.
func (s *server) close() {
	for _, sess := range s.sessions {
		_ = sess.Close()
	}
	if s.stdio != nil {
		done := make(chan struct{})
		go func() { _ = s.stdio.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(3 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// crashed reports a Go runtime crash in the server's stderr.
func (s *server) crashed() string { return crashSignature(s.stderr.String()) }

func crashSignature(stderr string) string {
	for _, sig := range []string{"fatal error:", "panic:", "SIGSEGV", "out of memory", "signal: killed"} {
		if i := strings.Index(stderr, sig); i >= 0 {
			line, _, _ := strings.Cut(stderr[i:], "\n")
			return cut(line, 120)
		}
	}
	return ""
}

// tail keeps the last max bytes written to it, and the first 4 KiB.
type tail struct {
	mu   sync.Mutex
	max  int
	head []byte
	buf  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.head) < 4096 {
		t.head = append(t.head, p[:min(len(p), 4096-len(t.head))]...)
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.head) + "\n…\n" + string(t.buf)
}

func (t *tail) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(bytes.TrimSpace(t.buf))
	if s == "" {
		return ""
	}
	return " (stderr: " + cut(s, 600) + ")"
}
