package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// Record, replay, offline runs and the official TypeScript client: the
// fixture workflow of docs/fixtures.md, end to end through the binary.

// repoRoot is the module root (the tests run in cmd/codemode).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// npmDir returns fixtures/npm with its packages installed, or skips the
// test when node or the packages are missing; with CODEMODE_REQUIRE_NODE=1
// (CI) it fails instead.
func npmDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "fixtures", "npm")
	miss := func(why string) {
		msg := why + ": run scripts/fetch-npm-fixtures.sh (needs node and npm) to install the pinned reference MCP servers and TypeScript client"
		if os.Getenv("CODEMODE_REQUIRE_NODE") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if _, err := exec.LookPath("node"); err != nil {
		miss("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		miss("fixtures/npm/node_modules is missing")
	}
	return dir
}

// cli runs the binary in dir and returns stdout, stderr and the exit code.
func cli(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// runOut is the part of `codemode run --json` that a replay must
// reproduce: the value, and the calls (id, name, error) in id order (their
// completion order varies with concurrency).
type runOut struct {
	Value any
	Error any
	Calls []string
}

func runJSONOf(t *testing.T, dir string, args ...string) runOut {
	t.Helper()
	stdout, stderr, code := cli(t, dir, append([]string{"run", "--json"}, args...)...)
	var r struct {
		Value any `json:"value"`
		Error any `json:"error"`
		Calls []struct {
			ID    string  `json:"id"`
			Name  string  `json:"name"`
			Error *string `json:"error"`
		} `json:"calls"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("run %v: exit %d, stdout %q: %v\nstderr: %s", args, code, stdout, err, stderr)
	}
	if r.Error != nil {
		t.Fatalf("run %v: error %v\nstderr: %s", args, r.Error, stderr)
	}
	out := runOut{Value: r.Value, Error: r.Error}
	for _, c := range r.Calls {
		e := "ok"
		if c.Error != nil {
			e = *c.Error
		}
		out.Calls = append(out.Calls, c.ID+" "+c.Name+" "+e)
	}
	sort.Slice(out.Calls, func(i, j int) bool {
		return len(out.Calls[i]) < len(out.Calls[j]) || len(out.Calls[i]) == len(out.Calls[j]) && out.Calls[i] < out.Calls[j]
	})
	return out
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordReplay runs program against config live with --record, then with
// --replay, then against `codemode fakemcp --fixture` child processes, and
// requires the same value and calls from all three. It returns the
// recordings' directory.
func recordReplay(t *testing.T, dir string, servers map[string]any, program string) string {
	t.Helper()
	live := filepath.Join(dir, "live.json")
	writeJSON(t, live, map[string]any{"mcpServers": servers})
	prog := filepath.Join(dir, "program.js")
	if err := os.WriteFile(prog, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "recordings")
	recorded := runJSONOf(t, dir, "--config", live, "--record", rec, prog)
	t.Logf("recorded run: %d calls", len(recorded.Calls))

	replayed := runJSONOf(t, dir, "--config", live, "--replay", rec, prog)
	if !reflect.DeepEqual(replayed, recorded) {
		t.Errorf("--replay differs from the recorded run:\ngot  %+v\nwant %+v", replayed, recorded)
	}

	children := map[string]any{}
	for name := range servers {
		children[name] = map[string]any{"command": binary, "args": []string{"fakemcp", "--fixture", filepath.Join(rec, name+".txtar")}}
	}
	fake := filepath.Join(dir, "fakemcp.json")
	writeJSON(t, fake, map[string]any{"mcpServers": children})
	served := runJSONOf(t, dir, "--config", fake, prog)
	if !reflect.DeepEqual(served, recorded) {
		t.Errorf("fakemcp --fixture differs from the recorded run:\ngot  %+v\nwant %+v", served, recorded)
	}
	return rec
}

// noSecrets fails if any file under dir contains a secret, and requires
// the marker where each secret was.
func noSecrets(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if len(files) == 0 {
		t.Fatalf("no recordings in %s", dir)
	}
	all := ""
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains the secret %q", filepath.Base(f), s)
			}
		}
		all += string(b)
	}
	if !strings.Contains(all, "[REDACTED]") {
		t.Errorf("no [REDACTED] marker in the recordings")
	}
}

func TestRecordReplayBuiltinFake(t *testing.T) {
	dir := t.TempDir()
	const envSecret, argSecret = "env-token-0123456789", "arg-token-9876543210"
	rec := recordReplay(t, dir, map[string]any{
		"fake": map[string]any{"command": binary, "args": []string{"fakemcp"}, "env": map[string]string{"FAKE_API_TOKEN": envSecret}},
	}, `
const a = await tools.mcp__fake__ticker({ symbol: "ACME" });
const e = await tools.mcp__fake__echo({ text: "hi", token: "`+argSecret+`" });
const both = await Promise.all(["X", "Y", "X"].map((symbol) => tools.mcp__fake__ticker({ symbol })));
const bad = await tools.mcp__fake__ticker({ symbol: "" }).catch((err) => err.code);
return { a, e, both, bad };`)
	noSecrets(t, rec, envSecret, argSecret)
}

func TestRecordReplayReferenceServers(t *testing.T) {
	npm := npmDir(t)
	dir := t.TempDir()
	files := filepath.Join(dir, "files")
	if err := os.Mkdir(files, 0o755); err != nil {
		t.Fatal(err)
	}
	const envSecret, argSecret = "env-secret-fixture-7f3a9c", "tok-argument-5e1d2b"
	mod := filepath.Join(npm, "node_modules", "@modelcontextprotocol")
	servers := map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{filepath.Join(mod, "server-everything", "dist", "index.js"), "stdio"},
			"env": map[string]string{"FIXTURE_TOKEN": envSecret}},
		"memory": map[string]any{"command": "node", "args": []string{filepath.Join(mod, "server-memory", "dist", "index.js")},
			"env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
		"filesystem": map[string]any{"command": "node", "args": []string{filepath.Join(mod, "server-filesystem", "dist", "index.js"), files}},
	}
	rec := recordReplay(t, dir, servers, `
const t = tools;
const echo = await t["mcp__everything__echo"]({ message: "hello", token: "`+argSecret+`" });
const sum = await t["mcp__everything__get-sum"]({ a: 2, b: 40 });
const weather = await t["mcp__everything__get-structured-content"]({ location: "Chicago" });
const env = await t["mcp__everything__get-env"]({}); // the server's environment, FIXTURE_TOKEN included
await t.mcp__memory__create_entities({ entities: [
  { name: "codemode", entityType: "project", observations: ["written in Go"] },
  { name: "goja", entityType: "engine", observations: ["runs in process"] }] });
await t.mcp__memory__create_relations({ relations: [{ from: "codemode", to: "goja", relationType: "embeds" }] });
await t.mcp__memory__add_observations({ observations: [{ entityName: "goja", contents: ["ES2020"] }] });
const found = await t.mcp__memory__search_nodes({ query: "goja" });
const graph = await t.mcp__memory__read_graph({});
const allowed = await t.mcp__filesystem__list_allowed_directories({});
const root = String(allowed.content ?? allowed).split("\n").pop().trim();
await t.mcp__filesystem__write_file({ path: root + "/notes.txt", content: "one\ntwo\nthree\n" });
const head = await t.mcp__filesystem__read_text_file({ path: root + "/notes.txt", head: 2 });
const listing = await t.mcp__filesystem__list_directory({ path: root });
const missing = await t.mcp__filesystem__read_text_file({ path: root + "/nope.txt" }).then(() => "found", (e) => e.code);
const [x, y] = await Promise.all([t["mcp__everything__get-sum"]({ a: 1, b: 2 }), t["mcp__everything__get-sum"]({ a: 3, b: 4 })]);
const envHasToken = Object.keys(typeof env === "string" ? JSON.parse(env) : env).includes("FIXTURE_TOKEN"); // JSON text arrives parsed
return { echo, sum, weather, envHasToken, found, graph, head, listing, missing, x, y };`)
	noSecrets(t, rec, envSecret, argSecret)
	everything, err := os.ReadFile(filepath.Join(rec, "everything.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"token": "[REDACTED]"`, `\"FIXTURE_TOKEN\": \"[REDACTED]\"`} {
		if !strings.Contains(string(everything), want) {
			t.Errorf("everything.txtar lacks %s", want)
		}
	}
}

// The checked-in recordings replay offline (no node): what CI and a
// reader of docs/fixtures.md run first.
func TestCheckedInRecordingsReplay(t *testing.T) {
	root := repoRoot(t)
	got := runJSONOf(t, root, "--config", "fixtures/recordings/record.json", "--replay", "fixtures/recordings", "fixtures/recordings/record.js")
	v, _ := json.Marshal(got.Value)
	for _, want := range []string{`"echo":"Echo: hello from code mode"`, `"engines":["goja","wazero"]`, `"graph":{"entities":3,"relations":2}`, `"humidity":82`} {
		if !strings.Contains(string(v), want) {
			t.Errorf("value %s: want it to contain %s", v, want)
		}
	}
	if len(got.Calls) != 13 {
		t.Errorf("calls: got %d, want 13: %v", len(got.Calls), got.Calls)
	}
}

func TestTypeScriptClientAgainstServe(t *testing.T) {
	npm := npmDir(t)
	dir := t.TempDir()
	recording := filepath.Join(repoRoot(t), "fixtures", "recordings", "memory.txtar")
	cfg := filepath.Join(dir, "codemode.json")
	writeJSON(t, cfg, map[string]any{"mcpServers": map[string]any{
		"memory": map[string]any{"command": binary, "args": []string{"fakemcp", "--fixture", recording}},
	}})
	prog := filepath.Join(dir, "program.js")
	if err := os.WriteFile(prog, []byte(`const engines = await tools.mcp__memory__search_nodes({ query: "engine" });
const graph = await tools.mcp__memory__read_graph({});
console.log("entities:", graph.entities.length);
return { engines: engines.entities.map((e) => e.name).sort(), relations: graph.relations.map((r) => r.from + " " + r.relationType + " " + r.to) };`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(npm, "e2e-client.mjs"), binary, cfg, prog)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node e2e-client.mjs: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	var out struct {
		Server       struct{ Name string }
		Instructions string
		Tools        []string
		Run          struct {
			IsError           bool
			Content           []struct{ Text string }
			StructuredContent struct {
				Value json.RawMessage
				Logs  []struct{ Text string }
			}
		}
		Masked struct {
			IsError bool
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("client output %q: %v\nstderr: %s", stdout.String(), err, stderr.String())
	}
	if out.Server.Name != "codemode" || !strings.Contains(out.Instructions, "# Code Mode") {
		t.Errorf("initialize: server %q, instructions %.80q", out.Server.Name, out.Instructions)
	}
	if len(out.Tools) != 1 || out.Tools[0] != "code_run" {
		t.Errorf("tools/list: got %v, want [code_run]", out.Tools)
	}
	if out.Run.IsError {
		t.Fatalf("code_run: %+v", out.Run.Content)
	}
	if got, want := string(out.Run.StructuredContent.Value), `{"engines":["goja","wazero"],"relations":["codemode embeds goja","codemode embeds wazero"]}`; got != want {
		t.Errorf("code_run value: got %s, want %s", got, want)
	}
	if logs := out.Run.StructuredContent.Logs; len(logs) != 1 || logs[0].Text != "entities: 3" {
		t.Errorf("code_run logs: got %+v, want [entities: 3]", logs)
	}
	if !out.Masked.IsError || len(out.Masked.Content) == 0 || !strings.Contains(out.Masked.Content[0].Text, "code_run") {
		t.Errorf("direct call to a masked tool: got %+v, want the code_run hint", out.Masked)
	}
}

func TestFakemcpFlags(t *testing.T) {
	fx := filepath.Join(repoRoot(t), "fixtures", "recordings", "memory.txtar")
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"fakemcp", "--help"}, exitOK, "-fixture"},
		{[]string{"fakemcp", "--fixture", fx, "--match", "fuzzy"}, exitUsage, `--match: "fuzzy" is not a match rule`},
		{[]string{"fakemcp", "--fixture", fx, "--latency", "soon"}, exitUsage, `--latency: "soon" is not a latency`},
		{[]string{"fakemcp", "--match", "tool"}, exitUsage, "apply to --fixture only"},
		{[]string{"fakemcp", "extra"}, exitUsage, `unexpected argument "extra"`},
		{[]string{"run", "--help"}, exitOK, "-replay"},
		{[]string{"serve", "--help"}, exitOK, "-record"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
		if code != tt.code || !strings.Contains(stdout.String()+stderr.String(), tt.out) {
			t.Errorf("%v: got %d %q, want %d containing %q", tt.args, code, stdout.String()+stderr.String(), tt.code, tt.out)
		}
	}
}

// `codemode serve --record` writes the recording when its client goes
// away; `serve --replay` serves it back.
func TestServeRecordThenReplay(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	cs := connectStdio(t, nil, "--record", rec)
	const program = `return await tools.mcp__fake__ticker({ symbol: "ACME" });`
	live := codeRun(t, cs, program)
	if live.IsError {
		t.Fatalf("code_run: %s", text(live))
	}
	cs.Close() // closes stdin; serve exits, and writes the file on its way out
	fx, err := os.ReadFile(filepath.Join(rec, "fake.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(fx), "-- calls/0001-ticker.json --") {
		t.Fatalf("fake.txtar:\n%s", fx)
	}
	replay := codeRun(t, connectStdio(t, nil, "--replay", rec), program)
	if replay.IsError || text(replay) != text(live) {
		t.Errorf("replayed: got %q, want %q", text(replay), text(live))
	}
}
