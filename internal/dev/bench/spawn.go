package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
	"github.com/codemode/codemode/runtime"
)

// PeerEngine is the engine name of a peer's rows.
const PeerEngine = "node-vm"

// Peer describes the same-protocol peer (internal/dev/bench/peer): an MCP
// server on the official TypeScript SDK whose code_run runs the program
// in node:vm, driven by the same client as `codemode serve`.
type Peer struct {
	// Script is the peer's server.mjs; its directory holds node_modules
	// (npm ci there first).
	Script string
	// Node is the node executable. If empty, "node" on PATH.
	Node string
}

// CheckPeer reports why the peer cannot run here (no node, no
// node_modules), or nil.
func CheckPeer(p *Peer) error {
	node := p.node()
	if _, err := exec.LookPath(node); err != nil {
		return fmt.Errorf("the peer needs Node.js (%s): %w", node, err)
	}
	if _, err := os.Stat(p.Script); err != nil {
		return fmt.Errorf("the peer's script: %w", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(p.Script), "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		return fmt.Errorf("the peer's dependencies are not installed (run `npm ci` in %s): %w", filepath.Dir(p.Script), err)
	}
	return nil
}

func (p *Peer) node() string {
	if p.Node != "" {
		return p.Node
	}
	return "node"
}

// peerMode is the peer's --mode for a bench mode.
func peerMode(mode string) string {
	if mode == ModePersistent {
		return "persistent"
	}
	return "per-call"
}

// newPeerStdioTarget starts one peer process per agent over stdio, each
// with `<exe> fakemcp` as its upstream "fake", as `codemode serve` has,
// and a session of the given client (the one that drives serve).
func newPeerStdioTarget(p *Peer, exe, mode string, agents int, client string) (*mcpTarget, error) {
	t, err := startStdioTarget(client, agents, func() *exec.Cmd {
		return exec.Command(p.node(), p.Script, "--mode", peerMode(mode), "--upstream", "fake", "--", exe, "fakemcp")
	})
	if err != nil {
		return nil, fmt.Errorf("starting the peer: %w", err)
	}
	return t, nil
}

// spawnedHTTP is a server process of ours (codemode serve --listen, or the
// peer with --http) measured over streamable HTTP, one session per agent.
type spawnedHTTP struct {
	httpTarget
	cmd    *exec.Cmd
	stderr *tailBuffer
}

func (t *spawnedHTTP) run(ctx context.Context, agent int, code string) (json.RawMessage, error) {
	v, err := t.httpTarget.run(ctx, agent, code)
	if err != nil {
		return nil, fmt.Errorf("%w%s", err, t.stderr.suffix())
	}
	return v, nil
}

func (t *spawnedHTTP) processes() []*exec.Cmd { return []*exec.Cmd{t.cmd} }

func (t *spawnedHTTP) close() {
	t.httpTarget.close()
	if t.cmd.Process != nil {
		t.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { t.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.cmd.Process.Kill()
			<-done
		}
	}
}

// freePort returns a loopback port nobody listens on (for an instant).
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// newSpawnedHTTPTarget starts `exe serve --listen` (peer nil) or the peer
// with --http, and connects agents sessions to it.
func newSpawnedHTTPTarget(p *Peer, exe, engine, mode string, agents int) (*spawnedHTTP, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	var cmd *exec.Cmd
	if p == nil {
		m := string(runtime.ModePerCall)
		if mode == ModePersistent {
			m = string(runtime.ModePersistent)
		}
		cmd = exec.Command(exe, "serve", "--engine", engine, "--mode", m, "--no-ui", "--listen", "127.0.0.1:"+strconv.Itoa(port))
	} else {
		cmd = exec.Command(p.node(), p.Script, "--mode", peerMode(mode), "--http", strconv.Itoa(port), "--upstream", "fake", "--", exe, "fakemcp")
	}
	tail := &tailBuffer{max: 4096}
	cmd.Stderr = tail
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &spawnedHTTP{cmd: cmd, stderr: tail}
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: agents + 1}}
	client := mcp.NewClient(&mcp.Implementation{Name: "codemode-bench", Version: "1"}, nil)
	deadline := time.Now().Add(20 * time.Second)
	for len(t.sessions) < agents {
		s, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
		if err != nil {
			if len(t.sessions) == 0 && time.Now().Before(deadline) && !exited(cmd) {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			t.close()
			return nil, fmt.Errorf("connecting to %s: %w%s", url, err, tail.suffix())
		}
		t.sessions = append(t.sessions, s)
	}
	return t, nil
}

func exited(cmd *exec.Cmd) bool {
	return cmd.ProcessState != nil || (cmd.Process != nil && cmd.Process.Signal(syscall.Signal(0)) != nil)
}

// processCPU returns the CPU time (user + system) of the processes and all
// their descendants, from /proc; ok is false where there is no /proc.
func processCPU(cmds []*exec.Cmd) (d time.Duration, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	type stat struct {
		ppid int
		cpu  time.Duration
	}
	all := map[int]stat{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, cpu, err := readStat(pid)
		if err != nil {
			continue
		}
		all[pid] = stat{ppid, cpu}
	}
	children := map[int][]int{}
	for pid, s := range all {
		children[s.ppid] = append(children[s.ppid], pid)
	}
	var walk func(int)
	walk = func(pid int) {
		d += all[pid].cpu
		for _, c := range children[pid] {
			walk(c)
		}
	}
	for _, c := range cmds {
		if c.Process != nil {
			walk(c.Process.Pid)
		}
	}
	return d, true
}

// clockTick is USER_HZ, 100 on every Linux we run on.
const clockTick = 100

func readStat(pid int) (ppid int, cpu time.Duration, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, errors.New("bad stat")
	}
	f := strings.Fields(s[i+1:])
	// After the command: state ppid ... utime (14th field overall, index
	// 11 here) stime (12).
	if len(f) < 13 {
		return 0, 0, errors.New("short stat")
	}
	ppid, _ = strconv.Atoi(f[1])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return ppid, time.Duration(ut+st) * time.Second / clockTick, nil
}
