package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/gosdk/mcp"
)

// The policy end-to-end tests drive the built binary with the official
// TypeScript MCP client (testdata/policyclient, pinned with a lock file),
// whose elicitation handler answers approval forms from a script.

const clientDir = "testdata/policyclient"

// needNode skips (or, under CODEMODE_REQUIRE_NODE=1, fails) when node or
// the client's packages are missing.
func needNode(t *testing.T) {
	t.Helper()
	why := ""
	if _, err := exec.LookPath("node"); err != nil {
		why = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		why = "the TypeScript client is not installed (run npm ci in cmd/codemode/" + clientDir + ")"
	}
	if why == "" {
		return
	}
	if os.Getenv("CODEMODE_REQUIRE_NODE") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}

type clientSpec struct {
	Command  []string `json:"command,omitempty"`
	URL      string   `json:"url,omitempty"`
	Elicit   bool     `json:"elicit"`
	Answers  []string `json:"answers"`
	Programs []string `json:"programs"`
}

type clientOut struct {
	Results []struct {
		IsError bool            `json:"isError"`
		Text    string          `json:"text"`
		Value   json.RawMessage `json:"value"`
		Code    string          `json:"code"`
	} `json:"results"`
	Asked []struct {
		Message string          `json:"message"`
		Schema  json.RawMessage `json:"schema"`
		Mode    string          `json:"mode"`
		Ms      float64         `json:"ms"`
	} `json:"asked"`
}

func runClient(t *testing.T, spec clientSpec) clientOut {
	t.Helper()
	b, _ := json.Marshal(spec)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", string(b))
	cmd.Dir = clientDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("client: %v\nstderr:\n%s", err, stderr.String())
	}
	var out clientOut
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("client output %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
	}
	return out
}

// policyConfig writes a config: the fake server, echo asks, ticker has a
// per-run budget for programs, an audit trail in dir, and extra codemode
// keys.
func policyConfig(t *testing.T, dir string, extra string) (path, auditPath string) {
	t.Helper()
	auditPath = filepath.Join(dir, "audit.jsonl")
	// goja: the engine that records the program line an approval prompt
	// shows (wazero's prompt says the line is unknown).
	cfg := fmt.Sprintf(`{"mcpServers": {"fake": {"command": %q, "args": ["fakemcp"]}},
 "codemode": {
  "engine": "goja",
  "policy": {"default": "allow", "rules": [
    {"tool": "mcp__fake__echo", "action": "ask", "reason": "echo needs a nod"},
    {"tool": "mcp__fake__ticker", "caller": "program", "action": "allow", "maxCallsPerRun": 2}
  ]},
  "audit": {"path": %q},
  "redact": ["token", "password"]%s}}`, binary, auditPath, extra)
	path = filepath.Join(dir, "codemode.json")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, auditPath
}

func auditLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("audit line %d is not JSON: %s", len(out)+1, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// wantLine checks one audit line's keys.
func wantLine(t *testing.T, n int, line map[string]any, want map[string]any) {
	t.Helper()
	for _, k := range []string{"time", "session", "callId", "parentId", "caller", "tool", "argsSha256", "rule", "action", "approval", "code", "ms"} {
		if _, ok := line[k]; !ok {
			t.Errorf("audit line %d lacks %q: %v", n, k, line)
		}
	}
	for k, v := range want {
		if fmt.Sprint(line[k]) != fmt.Sprint(v) {
			t.Errorf("audit line %d: %s = %v, want %v (line %v)", n, k, line[k], v, line)
		}
	}
}

func sha256Hex(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }

const echoCall = `const r = await tools.mcp__fake__echo({ text: "hi", token: "tok-e2e-secret-1" });
return r.text;`

const catchEcho = `try { await tools.mcp__fake__echo({ text: "x" }); return "ran"; }
catch (e) { return { code: e.code, message: e.message }; }`

// TestPolicyStdio: approvals over stdio with the TypeScript client.
func TestPolicyStdio(t *testing.T) {
	needNode(t)
	tests := []struct {
		name     string
		extra    string
		elicit   bool
		answers  []string
		programs []string
		check    func(t *testing.T, out clientOut, lines []map[string]any)
	}{
		{name: "allow once", elicit: true, answers: []string{"allow-once"}, programs: []string{echoCall},
			check: func(t *testing.T, out clientOut, lines []map[string]any) {
				if r := out.Results[0]; r.IsError || string(r.Value) != `"hi"` {
					t.Errorf("result %+v, want \"hi\"", r)
				}
				if len(out.Asked) != 1 {
					t.Fatalf("asked %d times, want once", len(out.Asked))
				}
				a := out.Asked[0]
				for _, want := range []string{"Server: fake", "Tool: echo (mcp__fake__echo)", "echo needs a nod (rules[0])", "Program line 1: const r = await tools.mcp__fake__echo(", `"text": "hi"`, `"token": "[REDACTED]"`} {
					if !strings.Contains(a.Message, want) {
						t.Errorf("the prompt lacks %q:\n%s", want, a.Message)
					}
				}
				if strings.Contains(a.Message, "tok-e2e-secret-1") {
					t.Errorf("the prompt shows the token:\n%s", a.Message)
				}
				var schema struct {
					Properties map[string]struct {
						Type string   `json:"type"`
						Enum []string `json:"enum"`
					} `json:"properties"`
					Required []string `json:"required"`
				}
				_ = json.Unmarshal(a.Schema, &schema)
				if d := schema.Properties["decision"]; len(schema.Properties) != 1 || d.Type != "string" || strings.Join(d.Enum, ",") != "allow-once,allow-session,deny" || strings.Join(schema.Required, ",") != "decision" {
					t.Errorf("form schema %s: want one required string field, decision, of allow-once, allow-session, deny", a.Schema)
				}
				if len(lines) != 2 {
					t.Fatalf("%d audit lines, want 2: %v", len(lines), lines)
				}
				wantLine(t, 1, lines[0], map[string]any{"caller": "program", "tool": "mcp__fake__echo", "rule": "rules[0]", "action": "ask",
					"approval": "allow-once", "answeredBy": "policy-e2e", "client": "policy-e2e", "code": "", "parentId": lines[1]["callId"],
					"argsSha256": sha256Hex(`{"text":"hi","token":"[REDACTED]"}`)})
				wantLine(t, 2, lines[1], map[string]any{"caller": "model", "tool": "code_run", "rule": "default", "action": "allow", "approval": "", "code": "", "parentId": ""})
			}},
		{name: "allow for the session", elicit: true, answers: []string{"allow-session"},
			programs: []string{echoCall + "\n// twice", `await tools.mcp__fake__echo({ text: "a" }); return (await tools.mcp__fake__echo({ text: "b" })).text;`},
			check: func(t *testing.T, out clientOut, lines []map[string]any) {
				for i, r := range out.Results {
					if r.IsError {
						t.Errorf("program %d: %+v", i, r)
					}
				}
				if len(out.Asked) != 1 {
					t.Errorf("asked %d times, want once: the later calls are allowed for the session", len(out.Asked))
				}
				var approvals []string
				for _, l := range lines {
					if l["tool"] == "mcp__fake__echo" {
						approvals = append(approvals, fmt.Sprint(l["approval"]))
					}
				}
				if strings.Join(approvals, " ") != "allow-session remembered remembered" {
					t.Errorf("echo approvals in the audit: %v, want allow-session then remembered twice", approvals)
				}
			}},
		{name: "decline", elicit: true, answers: []string{"decline"}, programs: []string{catchEcho},
			check: func(t *testing.T, out clientOut, lines []map[string]any) {
				var v struct{ Code, Message string }
				_ = json.Unmarshal(out.Results[0].Value, &v)
				if v.Code != "DENIED" || !strings.Contains(v.Message, "echo needs a nod") || !strings.Contains(v.Message, "rules[0]") || !strings.Contains(v.Message, "declined") {
					t.Errorf("the program caught %+v, want DENIED naming rules[0], its reason, and the decline", v)
				}
				wantLine(t, 1, lines[0], map[string]any{"tool": "mcp__fake__echo", "approval": "declined", "code": "DENIED"})
			}},
		{name: "deny", elicit: true, answers: []string{"deny"}, programs: []string{catchEcho},
			check: func(t *testing.T, out clientOut, lines []map[string]any) {
				var v struct{ Code, Message string }
				_ = json.Unmarshal(out.Results[0].Value, &v)
				if v.Code != "DENIED" || !strings.Contains(v.Message, "the user denied it") {
					t.Errorf("the program caught %+v, want DENIED", v)
				}
				wantLine(t, 1, lines[0], map[string]any{"approval": "deny", "answeredBy": "policy-e2e", "code": "DENIED"})
			}},
		{name: "no elicitation capability", elicit: false, programs: []string{catchEcho},
			check: func(t *testing.T, out clientOut, lines []map[string]any) {
				var v struct{ Code, Message string }
				_ = json.Unmarshal(out.Results[0].Value, &v)
				if v.Code != "DENIED" || !strings.Contains(v.Message, "did not declare the elicitation capability") || !strings.Contains(v.Message, "echo needs a nod") {
					t.Errorf("the program caught %+v, want DENIED: no elicitation capability", v)
				}
				wantLine(t, 1, lines[0], map[string]any{"approval": "unavailable", "code": "DENIED"})
			}},
		{name: "approval timeout", extra: `, "approvalTimeout": "1s"`, elicit: true, answers: []string{"never"}, programs: []string{catchEcho},
			check: func(t *testing.T, out clientOut, lines []map[string]any) {
				var v struct{ Code, Message string }
				_ = json.Unmarshal(out.Results[0].Value, &v)
				if v.Code != "DENIED" || !strings.Contains(v.Message, "within the approval timeout (1s)") {
					t.Errorf("the program caught %+v, want DENIED: timeout", v)
				}
				wantLine(t, 1, lines[0], map[string]any{"approval": "timeout", "code": "DENIED"})
			}},
		{name: "a 3-second approval does not consume a 2-second program deadline", extra: `, "timeout": "2s"`, elicit: true,
			answers: []string{"wait:3000:allow-once"}, programs: []string{echoCall},
			check: func(t *testing.T, out clientOut, lines []map[string]any) {
				if r := out.Results[0]; r.IsError || string(r.Value) != `"hi"` {
					t.Errorf("result %+v, want \"hi\": the person's 3 s are not the program's", r)
				}
				if len(out.Asked) != 1 || out.Asked[0].Ms < 3000 {
					t.Errorf("asked %+v, want one answer after 3 s", out.Asked)
				}
				if ms, _ := lines[1]["ms"].(float64); ms < 3000 {
					t.Errorf("code_run took %v ms by the audit, want over 3000", ms)
				}
			}},
		{name: "budget per run", elicit: true, programs: []string{`const out = [];
for (let i = 0; i < 3; i++) { try { await tools.mcp__fake__ticker({ symbol: "ACME" }); out.push("ok"); } catch (e) { out.push(e.code + ": " + e.message); } }
return out;`},
			check: func(t *testing.T, out clientOut, lines []map[string]any) {
				var v []string
				_ = json.Unmarshal(out.Results[0].Value, &v)
				if len(v) != 3 || v[0] != "ok" || v[1] != "ok" || !strings.HasPrefix(v[2], "DENIED") || !strings.Contains(v[2], "maxCallsPerRun") {
					t.Errorf("got %q, want two calls and a DENIED naming maxCallsPerRun", v)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, auditPath := policyConfig(t, dir, tt.extra)
			out := runClient(t, clientSpec{Command: []string{binary, "serve", "--config", cfg}, Elicit: tt.elicit, Answers: tt.answers, Programs: tt.programs})
			if len(out.Results) != len(tt.programs) {
				t.Fatalf("%d results, want %d", len(out.Results), len(tt.programs))
			}
			lines := auditLines(t, auditPath)
			raw, _ := os.ReadFile(auditPath)
			if bytes.Contains(raw, []byte("tok-e2e-secret-1")) {
				t.Error("the audit file holds the token")
			}
			tt.check(t, out, lines)
		})
	}
}

// TestPolicyHTTP: two HTTP sessions at once, each with its own memory of
// what it allowed: one allows echo for its session, the other is asked
// all the same and denies; a third, later session is asked again.
func TestPolicyHTTP(t *testing.T) {
	needNode(t)
	dir := t.TempDir()
	cfg, auditPath := policyConfig(t, dir, "")
	url := startPolicyHTTP(t, cfg)
	slowAllow := `await tools.mcp__fake__echo({ text: "a" }); return (await tools.mcp__fake__echo({ text: "b" })).text;`
	var wg sync.WaitGroup
	var a, b clientOut
	wg.Add(2)
	go func() {
		defer wg.Done()
		a = runClient(t, clientSpec{URL: url, Elicit: true, Answers: []string{"wait:500:allow-session"}, Programs: []string{slowAllow, slowAllow}})
	}()
	go func() {
		defer wg.Done()
		b = runClient(t, clientSpec{URL: url, Elicit: true, Answers: []string{"wait:1000:deny"}, Programs: []string{catchEcho}})
	}()
	wg.Wait()
	for i, r := range a.Results {
		if r.IsError || string(r.Value) != `"b"` {
			t.Errorf("session A, program %d: %+v", i, r)
		}
	}
	if len(a.Asked) != 1 {
		t.Errorf("session A was asked %d times, want once", len(a.Asked))
	}
	var v struct{ Code, Message string }
	_ = json.Unmarshal(b.Results[0].Value, &v)
	if len(b.Asked) != 1 || v.Code != "DENIED" {
		t.Errorf("session B: asked %d times, caught %+v; want asked once (A's allowance is A's) and DENIED", len(b.Asked), v)
	}
	c := runClient(t, clientSpec{URL: url, Elicit: true, Answers: []string{"allow-once"}, Programs: []string{echoCall}})
	if len(c.Asked) != 1 || c.Results[0].IsError {
		t.Errorf("session C: asked %d times, result %+v; want asked once and the call made", len(c.Asked), c.Results[0])
	}
	// The audit: A's echo lines in one session, B's in another.
	sessions := map[string][]string{}
	for _, l := range auditLines(t, auditPath) {
		if l["tool"] == "mcp__fake__echo" {
			s := fmt.Sprint(l["session"])
			sessions[s] = append(sessions[s], fmt.Sprint(l["approval"]))
		}
	}
	var got []string
	for _, approvals := range sessions {
		got = append(got, strings.Join(approvals, ","))
	}
	want := map[string]bool{"allow-session,remembered,remembered,remembered": true, "deny": true, "allow-once": true}
	if len(got) != 3 {
		t.Errorf("echo lines in %d sessions (%v), want 3", len(got), sessions)
	}
	for _, g := range got {
		if !want[g] {
			t.Errorf("a session's echo approvals %q; want one of %v", g, want)
		}
	}
}

// startPolicyHTTP runs `codemode serve --listen 127.0.0.1:0` and returns its URL.
func startPolicyHTTP(t *testing.T, cfg string) string {
	t.Helper()
	cmd := exec.Command(binary, "serve", "--config", cfg, "--listen", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving MCP at (http://\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("codemode serve --listen did not say where it serves")
	}
	return ""
}

// TestAuditUnwritable: with an audit path that cannot be written, every
// call is refused before it runs, code_run included.
func TestAuditUnwritable(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "codemode.json")
	_ = os.WriteFile(cfg, []byte(fmt.Sprintf(`{"mcpServers": {"fake": {"command": %q, "args": ["fakemcp"]}}, "codemode": {"audit": {"path": %q}}}`,
		binary, filepath.Join(blocker, "audit.jsonl"))), 0o644)
	cs := connectStdio(t, nil, "--config", cfg)
	res := call(t, cs, "code_run", map[string]any{"code": `return 1`})
	if !res.IsError || !strings.Contains(textOf(res), "audit trail cannot be written") {
		t.Errorf("got %q, want DENIED: the audit trail cannot be written", textOf(res))
	}
}

func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
