package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/dev/golden"
	"github.com/codemode/codemode/internal/gosdk/mcp"
	"golang.org/x/tools/txtar"
)

// runCLI runs the command in process and returns stdout, stderr and the
// exit code.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

// writeServers writes each server's tools as a recording (no calls) into
// dir and a config mounting them, and returns the config's path.
func writeServers(t *testing.T, dir string, servers map[string][]*mcp.Tool) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{}
	for name, list := range servers {
		b, err := json.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		if err := fixture.WriteFile(filepath.Join(dir, name+fixture.Ext), &fixture.Fixture{Server: name, Tools: b}); err != nil {
			t.Fatal(err)
		}
		cfg[name] = map[string]any{"fixture": name + fixture.Ext}
	}
	path := filepath.Join(dir, "codemode.json")
	writeJSON(t, path, map[string]any{"mcpServers": cfg})
	return path
}

// corpusServers is codemode/testdata/realworld_tools.json, the 36 tools
// shaped like github, filesystem, slack, postgres, browser, memory, search
// and calendar servers, grouped back into their servers (a config name
// cannot hold a dot: web.tools is served as web-tools).
func corpusServers(t *testing.T) map[string][]*mcp.Tool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "codemode", "testdata", "realworld_tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string][]*mcp.Tool{}
	for _, r := range raw {
		rest := strings.TrimPrefix(r.Name, "mcp__")
		server, tool, _ := strings.Cut(rest, "__")
		server = strings.ReplaceAll(server, ".", "-")
		tl := &mcp.Tool{Name: tool, Description: r.Description, InputSchema: r.InputSchema}
		if len(r.OutputSchema) > 0 {
			tl.OutputSchema = r.OutputSchema
		}
		out[server] = append(out[server], tl)
	}
	return out
}

// syntheticServers is 500 tools over 25 servers, the shape of the
// registry-level token tests (codemode's syntheticTools).
func syntheticServers() map[string][]*mcp.Tool {
	out := map[string][]*mcp.Tool{}
	for i := range 500 {
		server := fmt.Sprintf("svc%02d", i%25)
		out[server] = append(out[server], &mcp.Tool{
			Name:        fmt.Sprintf("operation_%03d", i),
			Description: fmt.Sprintf("Performs operation %d on the service's resources. Returns the updated resource with its metadata, or an error when the resource does not exist.", i),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string","description":"Resource id."},"limit":{"type":"integer","minimum":1,"maximum":100,"description":"Page size."},"mode":{"type":"string","enum":["fast","safe","dry-run"]},"tags":{"type":"array","items":{"type":"string"}},"filter_%d":{"type":"object","properties":{"field":{"type":"string"},"value":{"type":"string"}}}},"required":["id"]}`, i)),
		})
	}
	return out
}

// TestPromptGolden pins `codemode prompt` — what a model is given, with
// its token counts — for the fake server, a 36-tool corpus shaped like
// real servers and 500 synthetic tools, at the default catalog budget.
func TestPromptGolden(t *testing.T) {
	dir := t.TempDir()
	fakeCfg := filepath.Join(dir, "fake.json")
	writeJSON(t, fakeCfg, map[string]any{"mcpServers": map[string]any{
		"fake": map[string]any{"fixture": filepath.Join(repoRoot(t), "internal", "dev", "fakemcp", "builtin.txtar")},
	}})
	cases := []struct {
		name string
		cfg  string
		args []string
	}{
		{"fake-3-tools", fakeCfg, nil},
		{"fake-3-tools.json", fakeCfg, []string{"--json"}},
		{"corpus-36-tools", writeServers(t, filepath.Join(dir, "corpus"), corpusServers(t)), nil},
		{"synthetic-500-tools", writeServers(t, filepath.Join(dir, "synthetic"), syntheticServers()), nil},
	}
	var files []txtar.File
	var table []string
	for _, c := range cases {
		stdout, stderr, code := runCLI(t, append([]string{"prompt", "--config", c.cfg}, c.args...)...)
		if code != exitOK {
			t.Fatalf("%s: exit %d\nstderr: %s", c.name, code, stderr)
		}
		files = append(files, txtar.File{Name: c.name, Data: []byte(stdout)})
		if i := strings.Index(stdout, "# tokens"); i >= 0 {
			table = append(table, c.name+":\n"+stdout[i:])
		}
	}
	golden.Check(t, "testdata/prompt.txtar", "What a model is given (codemode prompt) at the default catalog budget; regenerate with go test ./cmd/codemode -run TestPromptGolden -update\n", files)
	t.Logf("\n%s", strings.Join(table, "\n"))
}

// TestPromptJSON: --json is one object whose token figures add up.
func TestPromptJSON(t *testing.T) {
	cfg := writeServers(t, t.TempDir(), corpusServers(t))
	stdout, stderr, code := runCLI(t, "prompt", "--json", "--config", cfg)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p struct {
		Encoding string
		Tools    []struct{ Tokens int }
		Tokens   struct{ Tools, Instructions, Total, PlainTools int }
		Catalog  struct{ Tools, Signatures, Tokens, Budget int }
		Servers  []struct{ Name, State string }
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, tl := range p.Tools {
		sum += tl.Tokens
	}
	var names []string
	for _, s := range p.Servers {
		names = append(names, s.Name+"="+s.State)
	}
	sort.Strings(names)
	switch {
	case p.Encoding != "o200k_base":
		t.Errorf("encoding %q", p.Encoding)
	case len(p.Tools) != 1 || sum != p.Tokens.Tools || p.Tokens.Total != p.Tokens.Tools+p.Tokens.Instructions:
		t.Errorf("token figures do not add up: %+v (tools sum %d)", p.Tokens, sum)
	case p.Catalog.Tools != 36 || p.Catalog.Signatures != 36 || p.Catalog.Tokens > p.Catalog.Budget:
		t.Errorf("catalog: %+v, want all 36 signatures within the budget", p.Catalog)
	case p.Tokens.PlainTools <= p.Tokens.Total:
		t.Errorf("code mode (%d) should cost less than the plain list (%d) at 36 tools", p.Tokens.Total, p.Tokens.PlainTools)
	case len(names) != 12:
		t.Errorf("servers: %v", names)
	}
}
