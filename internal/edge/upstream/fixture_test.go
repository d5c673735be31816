package upstream

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fixture"
	"github.com/codemode/codemode/internal/redact"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// The calls both halves of TestRecordThenReplay make, with the call ids
// the fake echoes back (so the replayed values equal the recorded ones).
var recordedCalls = []tools.Input{
	{CallID: "c1", Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "ACME"}},
	{CallID: "c2", Name: "mcp__fake__echo", Arguments: map[string]any{"text": "hello", "token": "tok-argument-secret"}},
	{CallID: "c3", Name: "mcp__fake__echo", Arguments: map[string]any{"text": "env says env-secret-value-42"}},
	{CallID: "c1", Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "ACME"}},
}

func TestRecordThenReplay(t *testing.T) {
	dir := t.TempDir()
	srv := fakeServer("FAKE_TOKEN=env-secret-value-42")
	rec, err := fixture.NewRecorder(fixture.RecorderOptions{Dir: dir, Secrets: redact.NewSecrets(srv.Env["FAKE_TOKEN"])})
	if err != nil {
		t.Fatal(err)
	}
	h := start(t, map[string]config.Server{"fake": srv}, Options{Recorder: rec})
	var live []string
	for _, in := range recordedCalls {
		res := h.exec(in)
		wantOK(t, res)
		live = append(live, string(res.Value))
	}
	// Refused by our own schema validation: never sent, never recorded.
	wantCode(t, h.exec(tools.Input{Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "X", "extra": 1}}), errs.CodeInvalidArguments)
	h.m.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}

	path := rec.Path("fake")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"tok-argument-secret", "env-secret-value-42"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the recording contains %q", secret)
		}
	}
	fx, err := fixture.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range fx.Calls {
		got = append(got, c.Tool+" "+string(c.Arguments))
	}
	want := []string{
		`ticker {"symbol":"ACME"}`,
		`echo {"text":"hello","token":"[REDACTED]"}`,
		`echo {"text":"env says [REDACTED]"}`,
		`ticker {"symbol":"ACME"}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("recorded calls:\ngot  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if !strings.Contains(string(fx.Initialize), `"name":"fakemcp"`) || !strings.Contains(string(fx.Tools), `"name":"slow"`) {
		t.Errorf("session: initialize %s, tools %.100s…", fx.Initialize, fx.Tools)
	}

	// Replay: the same calls, in process, get the same values.
	h2 := start(t, map[string]config.Server{"fake": {Fixture: path}}, Options{})
	if st := h2.m.Status()[0]; st.Transport != config.TransportFixture || st.State != StateReady || st.Tools != 3 {
		t.Fatalf("fixture server status: %+v", st)
	}
	for i, in := range recordedCalls {
		res := h2.exec(in)
		if i == 2 {
			// The recording holds the scrubbed text, not the secret, so
			// it cannot tell this call from another (docs/fixtures.md).
			wantCode(t, res, errs.CodeToolError)
			wantMessage(t, res, `recorded "env says [REDACTED]"`)
			continue
		}
		wantOK(t, res)
		jsonEqual(t, in.Name, res.Value, []byte(live[i]))
	}
	// A call the recording cannot answer is a tool error naming the
	// nearest recorded arguments.
	res := h2.exec(tools.Input{Name: "mcp__fake__ticker", Arguments: map[string]any{"symbol": "ACMF"}})
	wantCode(t, res, errs.CodeToolError)
	wantMessage(t, res, `no recorded call of ticker matches`, `/symbol: got "ACMF", recorded "ACME"`)
}

func TestFixtureServerErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.txtar")
	if err := os.WriteFile(path, []byte(`-- fixture.json --
{"format": "codemode.fixture/v1", "server": "notes", "redact": []}
-- tools.json --
[{"name": "get", "inputSchema": {"type": "object"}}]
-- calls/0001-get.json --
{"tool": "get", "arguments": {"id": 404}, "error": {"code": -32602, "message": "no note 404"}, "atMs": 0, "ms": 1}
-- calls/0002-get.json --
{"tool": "get", "arguments": {"id": 2}, "result": {"content": [{"type": "text", "text": "gone"}], "isError": true}, "atMs": 1, "ms": 1}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	h := start(t, map[string]config.Server{"notes": {Fixture: path}, "broken": {Fixture: filepath.Join(dir, "missing.txtar")}}, Options{})
	res := h.exec(tools.Input{Name: "mcp__notes__get", Arguments: map[string]any{"id": 404}})
	wantCode(t, res, errs.CodeToolError)
	wantMessage(t, res, `upstream server "notes": no note 404`)
	res = h.exec(tools.Input{Name: "mcp__notes__get", Arguments: map[string]any{"id": 2}})
	wantCode(t, res, errs.CodeToolError)
	wantMessage(t, res, "gone")
	for _, st := range h.m.Status() {
		if st.Name == "broken" && (st.State == StateReady || !strings.Contains(st.LastError, "missing.txtar")) {
			t.Errorf("a missing fixture: got %+v, want a failure naming the file", st)
		}
	}
}
