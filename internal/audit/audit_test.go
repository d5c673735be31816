package audit_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// rig is a registry with a trail and a policy: tool "mcp__fs__write"
// (allowed), "mcp__fs__rm" (denied), and "run", which makes the nested
// calls its arguments list.
type rig struct {
	reg   *tools.Registry
	trail *audit.Trail
	agent *tools.Agent
	ran   atomic.Int64
	logs  bytes.Buffer
}

func newRig(t *testing.T, path string) *rig {
	t.Helper()
	r := &rig{}
	p, err := policy.New(policy.Options{Spec: policy.Spec{Rules: []policy.Rule{{Tool: "mcp__fs__rm", Action: "deny", Reason: "no removals"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r.reg = tools.New(tools.Options{Approver: p})
	r.trail, err = audit.Open(audit.Options{Config: audit.Config{Path: path}, Redact: redact.Default(),
		Logger:  slog.New(slog.NewTextHandler(&r.logs, nil)),
		Session: func(a *tools.Agent) (string, string) { return "sess-" + a.ID(), "test-client" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.trail.Close() })
	r.reg.Use(r.trail.Middleware())
	p.Install(r.reg)
	for _, name := range []string{"mcp__fs__write", "mcp__fs__rm"} {
		if _, err := r.reg.Register(tools.GlobalLayer(), tools.Tool{Name: name, Handler: func(context.Context, *tools.Execution) (*tools.Result, error) {
			r.ran.Add(1)
			return tools.TextResult("done"), nil
		}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.reg.Register(tools.GlobalLayer(), tools.Tool{Name: "run", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		var args struct{ Calls []string }
		_ = json.Unmarshal(e.Arguments(), &args)
		for i, name := range args.Calls {
			r.reg.Execute(ctx, tools.Input{CallID: e.CallID() + ":ptc:" + string(rune('1'+i)), RootCallID: e.RootCallID(), Name: name, Agent: e.Agent(), Parent: e.Token(),
				Arguments: json.RawMessage(`{"path":"/a","token":"tok-secret-1234"}`)})
		}
		return tools.TextResult("ran"), nil
	}}); err != nil {
		t.Fatal(err)
	}
	s := scope.NewHost("h").Child(scope.KindPreset, "p")
	t.Cleanup(func() { _ = s.Dispose() })
	if r.agent, err = r.reg.NewAgent(s, "agent-7"); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) call(id, name string, args any) *tools.Result {
	return r.reg.Execute(context.Background(), tools.Input{CallID: id, Name: name, Arguments: args, Agent: r.agent})
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", len(out)+1, err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

func sha(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }

// TestLines: one line per call, refused ones included, in the order calls
// finished (nested before their parent), with every key, the policy's
// decision, and a digest of the redacted arguments; no secret reaches the
// file.
func TestLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	r := newRig(t, path)
	r.call("c1", "mcp__fs__write", json.RawMessage(`{"path":"/etc/x","password":"hunter2-long"}`))
	r.call("c2", "run", map[string]any{"calls": []any{"mcp__fs__write", "mcp__fs__rm"}})
	r.call("c3", "mcp__fs__nope", nil)
	lines := readLines(t, path)
	want := []map[string]any{
		{"callId": "c1", "parentId": "", "rootId": "c1", "caller": "model", "tool": "mcp__fs__write", "rule": "default", "action": "allow", "code": "",
			"argsSha256": sha(`{"path":"/etc/x","password":"[REDACTED]"}`), "argsBytes": float64(len(`{"path":"/etc/x","password":"hunter2-long"}`))},
		{"callId": "c2:ptc:1", "parentId": "c2", "rootId": "c2", "caller": "program", "tool": "mcp__fs__write", "rule": "default", "action": "allow", "code": "",
			"argsSha256": sha(`{"path":"/a","token":"[REDACTED]"}`)},
		{"callId": "c2:ptc:2", "parentId": "c2", "rootId": "c2", "caller": "program", "tool": "mcp__fs__rm", "rule": "rules[0]", "action": "deny", "reason": "no removals", "code": "DENIED"},
		{"callId": "c2", "parentId": "", "caller": "model", "tool": "run", "code": ""},
		{"callId": "c3", "tool": "mcp__fs__nope", "rule": "", "action": "", "argsSha256": "", "argsBytes": float64(0), "code": "UNKNOWN_TOOL"},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d: %v", len(lines), len(want), lines)
	}
	keys := []string{"time", "session", "agent", "client", "callId", "parentId", "rootId", "caller", "tool", "argsSha256", "argsBytes", "rule", "action", "reason", "approval", "answeredBy", "code", "ms"}
	for i, l := range lines {
		for _, k := range keys {
			if _, ok := l[k]; !ok {
				t.Errorf("line %d lacks %q: %v", i+1, k, l)
			}
		}
		if l["session"] != "sess-agent-7" || l["agent"] != "agent-7" || l["client"] != "test-client" {
			t.Errorf("line %d: session %v agent %v client %v", i+1, l["session"], l["agent"], l["client"])
		}
		for k, v := range want[i] {
			if l[k] != v {
				t.Errorf("line %d: %s = %v, want %v", i+1, k, l[k], v)
			}
		}
	}
	raw, _ := os.ReadFile(path)
	for _, secret := range []string{"hunter2-long", "tok-secret-1234"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the audit file holds the secret %q", secret)
		}
	}
}

// TestUnwritableFailsClosed: a trail whose file cannot be opened refuses
// every call before it runs, with DENIED, and logs why.
func TestUnwritableFailsClosed(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, filepath.Join(notDir, "audit.jsonl")) // a path under a regular file
	for i := 0; i < 2; i++ {
		res := r.call("c", "mcp__fs__write", nil)
		if res.Err == nil || res.Err.Code != errs.CodeDenied || !strings.Contains(res.Err.Message, "audit trail cannot be written") {
			t.Errorf("call %d: got %v, want DENIED: the audit trail cannot be written", i, res.Err)
		}
	}
	if n := r.ran.Load(); n != 0 {
		t.Errorf("the tool ran %d times, want 0", n)
	}
	if !strings.Contains(r.logs.String(), "audit: the trail cannot be written") {
		t.Errorf("nothing logged: %q", r.logs.String())
	}
}

// TestFullDisk: a trail whose file takes no bytes (a full disk) refuses
// calls before they run.
func TestFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	r := newRig(t, "/dev/full")
	res := r.call("c1", "mcp__fs__write", nil)
	if res.Err == nil || res.Err.Code != errs.CodeDenied || !strings.Contains(res.Err.Message, "no space left on device") {
		t.Errorf("got %v, want DENIED saying why", res.Err)
	}
	if n := r.ran.Load(); n != 0 {
		t.Errorf("the tool ran %d times, want 0", n)
	}
}

// failing accepts n writes, then fails every one.
type failing struct{ n atomic.Int64 }

func (f *failing) Write(p []byte) (int, error) {
	if f.n.Add(-1) < 0 {
		return 0, errors.New("disk on fire")
	}
	return len(p), nil
}
func (f *failing) Close() error { return nil }

// TestWriteFailureWithholds: a call whose line cannot be written after it
// ran has its result withheld, and the next call does not run.
func TestWriteFailureWithholds(t *testing.T) {
	r := newRig(t, filepath.Join(t.TempDir(), "audit.jsonl"))
	f := &failing{}
	f.n.Store(1)
	audit.SetWriter(r.trail, f)
	if res := r.call("c0", "mcp__fs__write", nil); res.IsError {
		t.Fatalf("first call: %v", res.Err)
	}
	res := r.call("c1", "mcp__fs__write", nil)
	if res.Err == nil || res.Err.Code != errs.CodeDenied || !strings.Contains(res.Err.Message, "its result is withheld") || !strings.Contains(res.Err.Message, "disk on fire") {
		t.Errorf("second call: got %v, want DENIED, result withheld", res.Err)
	}
	res = r.call("c2", "mcp__fs__write", nil)
	if res.Err == nil || res.Err.Code != errs.CodeDenied || !strings.Contains(res.Err.Message, "no call runs until it can") {
		t.Errorf("third call: got %v, want DENIED before it runs", res.Err)
	}
	if n := r.ran.Load(); n != 2 {
		t.Errorf("the tool ran %d times, want 2 (the first two calls)", n)
	}
	if !strings.Contains(r.logs.String(), "disk on fire") {
		t.Errorf("the failure is not logged: %q", r.logs.String())
	}
}

// TestRecovers: once the file can be written again, calls run again.
func TestRecovers(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "logs")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRig(t, filepath.Join(blocker, "audit.jsonl"))
	if res := r.call("c1", "mcp__fs__write", nil); !res.IsError {
		t.Fatal("the first call ran with no trail")
	}
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	if res := r.call("c2", "mcp__fs__write", nil); !res.IsError {
		t.Error("the probing call ran: it should be refused, its line being the probe")
	}
	if res := r.call("c3", "mcp__fs__write", nil); res.IsError {
		t.Errorf("after recovery: got %v, want the call to run", res.Err)
	}
	lines := readLines(t, filepath.Join(blocker, "audit.jsonl"))
	if len(lines) != 2 || lines[0]["callId"] != "c2" || lines[0]["code"] != "DENIED" || lines[1]["callId"] != "c3" {
		t.Errorf("lines %v, want c2 (DENIED) and c3", lines)
	}
}

// TestRotation: past maxSizeMB the file is rotated, and at most maxBackups
// old files are kept.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	tr, err := audit.Open(audit.Options{Config: audit.Config{Path: path, MaxSizeMB: 1, MaxBackups: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	reg := tools.New(tools.Options{})
	reg.Use(tr.Middleware())
	if _, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "t", Handler: func(context.Context, *tools.Execution) (*tools.Result, error) { return nil, nil }}); err != nil {
		t.Fatal(err)
	}
	id := strings.Repeat("x", 500) // ~800-byte lines: 1 MB in ~1300 calls
	for i := 0; i < 3000; i++ {
		if res := reg.Execute(context.Background(), tools.Input{CallID: id, Name: "t"}); res.IsError {
			t.Fatal(res.Err)
		}
	}
	// The mill that removes old backups runs on its own goroutine: give it
	// a bounded number of chances.
	var names []string
	for k := 0; k < 200; k++ {
		ents, _ := os.ReadDir(dir)
		names = names[:0]
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if len(names) == 2 {
			break
		}
		tr.Close() // a no-op for the mill; yields
	}
	if len(names) < 2 || len(names) > 3 {
		t.Errorf("files %v: want the current one and a backup", names)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

// BenchmarkTrail is what the trail adds to one call, with the default
// redaction rules: none (the registry alone), the line encoded but not
// written (discard), and written to a file (one write(2) per line).
//
//	go test -run '^$' -bench BenchmarkTrail -benchmem ./internal/audit
func BenchmarkTrail(b *testing.B) {
	for _, mode := range []string{"none", "discard", "file"} {
		b.Run(mode, func(b *testing.B) {
			reg := tools.New(tools.Options{})
			if mode != "none" {
				trail, err := audit.Open(audit.Options{Config: audit.Config{Path: filepath.Join(b.TempDir(), "audit.jsonl")},
					Session: func(a *tools.Agent) (string, string) { return "sess-" + a.ID(), "bench-client" }})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { trail.Close() })
				if mode == "discard" {
					audit.SetWriter(trail, discard{})
				}
				reg.Use(trail.Middleware())
			}
			if _, err := reg.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__fake__noop", Handler: func(context.Context, *tools.Execution) (*tools.Result, error) {
				return tools.TextResult("ok"), nil
			}}); err != nil {
				b.Fatal(err)
			}
			s := scope.NewHost("h").Child(scope.KindPreset, "p")
			b.Cleanup(func() { _ = s.Dispose() })
			agent, err := reg.NewAgent(s, "agent-7")
			if err != nil {
				b.Fatal(err)
			}
			in := tools.Input{CallID: "mcp_1", Name: "mcp__fake__noop", Agent: agent, Arguments: json.RawMessage(`{"path":"/tmp/a.txt","n":3}`)}
			b.ReportAllocs()
			for b.Loop() {
				if res := reg.Execute(context.Background(), in); res.IsError {
					b.Fatal(res.TextOf())
				}
			}
		})
	}
}
