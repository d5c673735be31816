package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRawClientAgreesWithSDK runs the same programs through a real
// `codemode serve` child with the go-sdk's client and with rawClient, on
// every engine in both modes, and checks that they get the same answers:
// W1, one nested call (through serve to the fake upstream), and a program
// that throws (an isError result, whose text both report alike).
func TestRawClientAgreesWithSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("builds codemode and starts it")
	}
	exe := buildCodemode(t)
	byName := map[string]*Workload{}
	for _, w := range append(Workloads(), SweepWorkloads()...) {
		byName[w.Name] = w
	}
	for _, engine := range AllEngines {
		if err := checkEngine(engine); err != nil {
			t.Logf("%s: unavailable (%v)", engine, err)
			continue
		}
		for _, mode := range AllModes {
			t.Run(engine+"/"+mode, func(t *testing.T) {
				sdk, err := newMCPTarget(exe, engine, mode, 1, "", ClientSDK)
				if err != nil {
					t.Fatal(err)
				}
				defer sdk.close()
				raw, err := newMCPTarget(exe, engine, mode, 1, "", ClientRaw)
				if err != nil {
					t.Fatal(err)
				}
				defer raw.close()
				ctx := context.Background()
				for _, name := range []string{"trivial", "calls1", "calls10"} {
					w := byName[name]
					code := w.Program(mode == ModePersistent)
					for i := range 3 { // the second and third reuse the encoded program
						got, err := raw.run(ctx, 0, code)
						if err != nil {
							t.Fatalf("%s, run %d: raw: %v", name, i, err)
						}
						if err := w.Check(got); err != nil {
							t.Fatalf("%s, run %d: raw: %v", name, i, err)
						}
						want, err := sdk.run(ctx, 0, code)
						if err != nil {
							t.Fatalf("%s: sdk: %v", name, err)
						}
						if string(got) != string(want) {
							t.Errorf("%s: raw got %s, sdk %s", name, got, want)
						}
					}
				}
				const throws = `throw new Error("boom")`
				_, rerr := raw.run(ctx, 0, throws)
				_, serr := sdk.run(ctx, 0, throws)
				if rerr == nil || serr == nil {
					t.Fatalf("a throwing program: raw %v, sdk %v; want errors", rerr, serr)
				}
				if !strings.Contains(rerr.Error(), "boom") || rerr.Error() != serr.Error() {
					t.Errorf("a throwing program: raw %q, sdk %q", rerr, serr)
				}
				// The session goes on after an isError result.
				if v, err := raw.run(ctx, 0, "return 1 + 1"); err != nil || string(v) != "2" {
					t.Errorf("after an error: got %s, %v; want 2", v, err)
				}
			})
		}
	}
}

// TestRawClientFrames drives rawClient against a scripted server (this
// test binary, re-run as TestRawClientHelper): notifications and server
// requests before a reply, a reply in pieces, an error reply, a reply to
// the wrong id, and a server that exits.
func TestRawClientFrames(t *testing.T) {
	tests := []struct {
		script  string
		wantVal string
		wantErr string
		answer  string // what the client must have written back, if anything
	}{
		{script: "ok", wantVal: "2"},
		{script: "notify", wantVal: "2"},
		{script: "ping", wantVal: "2", answer: `{"jsonrpc":"2.0","id":"s1","result":{}}`},
		{script: "sampling", wantVal: "2", answer: `{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"method not found"}}`},
		{script: "pieces", wantVal: "2"},
		{script: "iserror", wantErr: "code_run: boom"},
		{script: "rpcerror", wantErr: `error reply -32602: bad params ({"why":"x"})`},
		{script: "noid", wantErr: "error reply without an id -32700: parse error"},
		{script: "wrongid", wantErr: "a reply to id 99 while waiting for 2"},
		{script: "nostructured", wantErr: "no structured content"},
		{script: "exit", wantErr: "the server closed its stdout"},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			answers := filepath.Join(t.TempDir(), "answers")
			cmd := exec.Command(os.Args[0], "-test.run=^TestRawClientHelper$")
			cmd.Env = append(os.Environ(), "RAWCLIENT_HELPER="+tt.script, "RAWCLIENT_ANSWERS="+answers)
			cmd.Stderr = os.Stderr
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := startRawClient(ctx, cmd)
			if err != nil {
				t.Fatal(err)
			}
			v, err := c.codeRun(ctx, "return 1 + 1")
			c.close()
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("got %s, %v; want an error with %q", v, err, tt.wantErr)
				}
			case err != nil || string(v) != tt.wantVal:
				t.Errorf("got %s, %v; want %s", v, err, tt.wantVal)
			}
			if tt.answer != "" {
				b, err := os.ReadFile(answers)
				if err != nil || strings.TrimSpace(string(b)) != tt.answer {
					t.Errorf("the client answered %q (%v), want %q", b, err, tt.answer)
				}
			}
		})
	}
}

// TestRawClientContext checks that a call whose context ends while the
// server stays silent returns, and that the session is then over.
func TestRawClientContext(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestRawClientHelper$")
	cmd.Env = append(os.Environ(), "RAWCLIENT_HELPER=silent")
	cmd.Stderr = os.Stderr
	c, err := startRawClient(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.codeRun(ctx, "return 1"); err == nil {
		t.Fatal("no error from a call whose context ended")
	}
	if _, err := c.codeRun(context.Background(), "return 1"); err == nil || !strings.Contains(err.Error(), "abandoned") {
		t.Errorf("the next call: %v, want the session abandoned", err)
	}
}

// TestRawClientHelper is the scripted server of TestRawClientFrames when
// RAWCLIENT_HELPER is set; otherwise it does nothing.
func TestRawClientHelper(t *testing.T) {
	script := os.Getenv("RAWCLIENT_HELPER")
	if script == "" {
		return
	}
	in := bufio.NewScanner(os.Stdin)
	read := func() map[string]any {
		if !in.Scan() {
			os.Exit(0)
		}
		var m map[string]any
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintf(os.Stderr, "helper: %v\n", err)
			os.Exit(2)
		}
		return m
	}
	out := func(s string) { os.Stdout.WriteString(s + "\n") }
	init := read()
	out(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"h","version":"1"}}}`,
		init["id"], init["params"].(map[string]any)["protocolVersion"]))
	if m := read(); m["method"] != "notifications/initialized" {
		os.Exit(3)
	}
	call := read()
	id := call["id"]
	result := `{"content":[{"type":"text","text":"2"}],"structuredContent":{"value":2,"logs":[]}}`
	reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":%s}`, id, result)
	answer := func() {
		if !in.Scan() {
			os.Exit(4)
		}
		os.WriteFile(os.Getenv("RAWCLIENT_ANSWERS"), in.Bytes(), 0o600)
	}
	switch script {
	case "ok":
		out(reply)
	case "notify":
		out(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
		out(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
		out(reply)
	case "ping":
		out(`{"jsonrpc":"2.0","id":"s1","method":"ping"}`)
		answer()
		out(reply)
	case "sampling":
		out(`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}`)
		answer()
		out(reply)
	case "pieces":
		for _, piece := range []string{reply[:10], reply[10:40], reply[40:] + "\n"} {
			os.Stdout.WriteString(piece)
			time.Sleep(5 * time.Millisecond)
		}
	case "iserror":
		out(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"isError":true,"content":[{"type":"text","text":"boom"}]}}`, id))
	case "rpcerror":
		out(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"error":{"code":-32602,"message":"bad params","data":{"why":"x"}}}`, id))
	case "noid":
		out(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
	case "wrongid":
		out(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	case "nostructured":
		out(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":{"content":[]}}`, id))
	case "exit":
		os.Exit(0)
	case "silent":
		for in.Scan() {
		}
	}
	for in.Scan() {
	}
	os.Exit(0)
}

// buildCodemode builds the codemode command into a temporary directory.
func buildCodemode(t testing.TB) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build codemode with")
	}
	exe := filepath.Join(t.TempDir(), "codemode")
	build := exec.Command(gobin, "build", "-o", exe, "github.com/codemode/codemode/cmd/codemode")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("building codemode: %v", err)
	}
	return exe
}
