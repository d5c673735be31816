package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode/codemode/internal/dev/fixture"
)

// The command-level tests of issue 12: a configured server that fails is
// visible on every path, serve says when it falls back to the demo server,
// and a real stdio server that answers JSON as text gives programs the
// parsed value.

const tokenError = "Error: GITHUB_TOKEN environment variable is required"

// brokenConfig mounts the fake server's recording and a stdio server that
// exits at start-up explaining why on stderr, as server-github does
// without its token.
func brokenConfig(t *testing.T) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "codemode.json")
	writeJSON(t, cfg, map[string]any{"mcpServers": map[string]any{
		"fake":   map[string]any{"fixture": filepath.Join(repoRoot(t), "internal", "dev", "fakemcp", "builtin.txtar")},
		"github": map[string]any{"command": "sh", "args": []string{"-c", "echo '" + tokenError + "' >&2; exit 1"}},
	}})
	return cfg
}

// TestFailedUpstreamIsVisible: each path a user or a model takes shows the
// failed server and its own error line.
func TestFailedUpstreamIsVisible(t *testing.T) {
	cfg := brokenConfig(t)
	t.Run("tools prints each server's state and exits non-zero", func(t *testing.T) {
		stdout, stderr, code := runCLI(t, "tools", "--config", cfg)
		if code != exitFail {
			t.Errorf("exit %d, want %d", code, exitFail)
		}
		if !strings.Contains(stdout, "\nserver fake: ready, 3 tools\n") || !strings.Contains(stdout, "\nserver github: restarting, 0 tools: connecting: ") || !strings.Contains(stdout, tokenError) {
			t.Errorf("stdout lacks the servers' states:\n%s", stdout)
		}
		if !strings.Contains(stderr, "codemode tools: server github") {
			t.Errorf("stderr: %s", stderr)
		}
	})
	t.Run("verify fails a check", func(t *testing.T) {
		stdout, _, code := runCLI(t, "verify", "--config", cfg)
		if code != exitFail || !strings.Contains(stdout, "FAIL  mount configured servers: server github: restarting") || !strings.Contains(stdout, tokenError) {
			t.Errorf("exit %d:\n%s", code, stdout)
		}
	})
	t.Run("a program's call is UPSTREAM_UNAVAILABLE with the server's error", func(t *testing.T) {
		prog := filepath.Join(t.TempDir(), "p.js")
		os.WriteFile(prog, []byte(`return await tools.mcp__github__get_me({})`), 0o644)
		stdout, _, code := runCLI(t, "run", "--json", "--config", cfg, prog)
		var out struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal([]byte(stdout), &out)
		if code != exitFail || out.Error.Code != "UPSTREAM_UNAVAILABLE" || !strings.Contains(out.Error.Message, `upstream server "github" is restarting`) || !strings.Contains(out.Error.Message, tokenError) {
			t.Errorf("exit %d: %s", code, stdout)
		}
	})
	t.Run("code_run's description lists the server as unavailable", func(t *testing.T) {
		stdout, _, code := runCLI(t, "prompt", "--config", cfg)
		want := "github: tools.mcp__github__NAME(args), 0 tools // unavailable: restarting: connecting: "
		if code != exitFail || !strings.Contains(stdout, want) || !strings.Contains(stdout, tokenError+"; its tools are listed once it starts") {
			t.Errorf("exit %d; want %q and the error in:\n%s", code, want, stdout)
		}
	})
}

// TestServeSaysItServesTheDemo: without a config serve warns, once, that
// it serves the built-in demo server and where it looked.
func TestServeSaysItServesTheDemo(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "serve")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("") // the session ends at once
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want := "no --config and no codemode.json in " + dir + ": serving the built-in demo server"
	if n := strings.Count(stderr.String(), want); n != 1 || !strings.Contains(stderr.String(), "WARN") {
		t.Errorf("got %d warnings, want 1 containing %q:\n%s", n, want, stderr.String())
	}
	// With a config, nothing of the kind.
	cfg := filepath.Join(dir, "codemode.json")
	writeJSON(t, cfg, map[string]any{"mcpServers": map[string]any{"fake": map[string]any{"fixture": filepath.Join(repoRoot(t), "internal", "dev", "fakemcp", "builtin.txtar")}}})
	stderr.Reset()
	cmd = exec.CommandContext(ctx, binary, "serve")
	cmd.Dir, cmd.Stdin, cmd.Stderr = dir, strings.NewReader(""), &stderr
	if err := cmd.Run(); err != nil || strings.Contains(stderr.String(), "demo server") {
		t.Errorf("with ./codemode.json: %v\n%s", err, stderr.String())
	}
}

// TestJSONTextServer: a real stdio server (the built binary replaying a
// recording, started by `codemode serve` as a child) that answers JSON as
// text, with no structured content and no output schema, as most MCP
// servers do: the binding resolves to the parsed value, and the catalog
// and the declaration say what to expect. The recording's path is relative
// to the config file, as the child's arguments may now be.
func TestJSONTextServer(t *testing.T) {
	dir := t.TempDir()
	tools := `[{"name": "search", "description": "Search the notes. Returns JSON.", "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}]`
	result := `{"content": [{"type": "text", "text": "{\n  \"hits\": [{\"id\": \"n1\", \"title\": \"groceries\"}],\n  \"total\": 1\n}"}]}`
	fx := &fixture.Fixture{Server: "notes", Tools: json.RawMessage(tools), Calls: []fixture.Call{{Tool: "search", Arguments: json.RawMessage(`{"query":"g"}`), Result: json.RawMessage(result)}}}
	if err := fixture.WriteFile(filepath.Join(dir, "notes.txtar"), fx); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "codemode.json")
	writeJSON(t, cfg, map[string]any{"mcpServers": map[string]any{
		"notes": map[string]any{"command": binary, "args": []string{"fakemcp", "--fixture", "notes.txtar", "--match", "tool"}},
	}})
	cs := connectStdio(t, nil, "--config", cfg)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := list.Tools[0].Description; !strings.Contains(d, "notes: tools.mcp__notes__NAME(args)\n  search(args: {query: string}): Promise<unknown> // Search the notes.\n") || !strings.Contains(d, "else to its text parsed as JSON") {
		t.Errorf("the catalog does not say what search resolves to:\n%s", d)
	}
	res := codeRun(t, cs, `const r = await tools.mcp__notes__search({ query: "g" });
const decl = (await tools.code_tools_describe({ names: ["mcp__notes__search"] })).declarations;
return { type: typeof r, title: r.hits[0].title, declared: decl.includes("type McpNotesSearchResult = unknown /* JSON text, parsed */;") };`)
	if res.IsError {
		t.Fatal(text(res))
	}
	if got, want := text(res), `{"type":"object","title":"groceries","declared":true}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
