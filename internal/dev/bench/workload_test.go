package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkloadsAnswer runs every workload, standard and sweep, three times
// on each available engine in both modes, checking every answer. It asserts
// nothing about time.
func TestWorkloadsAnswer(t *testing.T) {
	opts := Options{Sweep: !testing.Short(), N: 3, Warmup: 1}
	workloads := opts.withDefaults().Workloads
	if got, want := len(workloads), 6+map[bool]int{true: 0, false: 5}[testing.Short()]; got != want {
		t.Errorf("workloads: got %d, want %d (standard, and the sweep points that are not)", got, want)
	}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, e := range rep.Engines {
		if !e.Available {
			t.Logf("%s: unavailable (%s)", e.Name, e.Reason)
			continue
		}
		ran++
	}
	if ran == 0 {
		t.Fatalf("no engine is available: %+v", rep.Engines)
	}
	if got, want := len(rep.Rows), ran*len(AllModes)*len(workloads); got != want {
		t.Errorf("rows: got %d, want %d", got, want)
	}
	for _, row := range rep.Rows {
		if row.Error != "" {
			t.Errorf("%s %s %s: %s", row.Engine, row.Mode, row.Workload, row.Error)
			continue
		}
		if row.N != 3 || row.Stats.Median <= 0 || row.Throughput <= 0 {
			t.Errorf("%s %s %s: got n=%d median=%v throughput=%v, want 3 runs timed", row.Engine, row.Mode, row.Workload, row.N, row.Stats.Median, row.Throughput)
		}
		if row.Mode == ModePersistent && row.Setup <= 0 {
			t.Errorf("%s %s %s: no setup time recorded", row.Engine, row.Mode, row.Workload)
		}
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	checkSchema(t, buf.Bytes())
}

// TestWrongAnswerFailsTheRow: a program whose answer differs from the
// workload's must fail the row, loudly, rather than report a time.
func TestWrongAnswerFailsTheRow(t *testing.T) {
	tests := []struct {
		name string
		w    *Workload
		want string
	}{
		{"wrong value", &Workload{Name: "liar", Code: "return 1 + 2", want: mustCanonical(2)}, "liar: wrong answer: got 3, want 2"},
		{"no value", &Workload{Name: "silent", Code: "let x = 1", want: mustCanonical(2)}, "returned nothing"},
		{"throws", &Workload{Name: "thrower", Code: `throw new Error("boom")`, want: mustCanonical(2)}, "boom"},
		{"broken persistent state", &Workload{Name: "amnesia", Setup: "return 7", Param: 7, Code: "return missingState.length", PerCall: "return 2", want: mustCanonical(2)}, "missingState"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Run(context.Background(), Options{Engines: []string{"goja"}, Workloads: []*Workload{tt.w}, N: 3, Warmup: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Failed() {
				t.Fatalf("Failed: got false, want true")
			}
			failed := 0
			for _, row := range rep.Rows {
				if row.Error == "" {
					continue
				}
				failed++
				if !strings.Contains(row.Error, tt.want) {
					t.Errorf("%s row error: got %q, want it to contain %q", row.Mode, row.Error, tt.want)
				}
				if row.Stats.Median != 0 {
					t.Errorf("%s row: a failed row reports a latency (%v)", row.Mode, row.Stats.Median)
				}
			}
			if failed == 0 {
				t.Errorf("no row failed")
			}
		})
	}
}

func TestWantMatchesGo(t *testing.T) {
	// The expected answers are computed in Go; pin a few by hand so a
	// mistake there cannot make a wrong engine look right.
	tests := []struct {
		name string
		want string
	}{
		{"trivial", `2`},
		{"cpu", `75025`},
		{"repl", `{"hits":100,"qty":4400,"records":10000}`}, // i = 42 + 100k: (i*7) % 50 = 44,
		{"repl1k", `{"hits":10,"qty":440,"records":1000}`},
	}
	for _, tt := range tests {
		w, ok := Lookup(tt.name)
		if !ok {
			t.Fatalf("Lookup(%q): not found", tt.name)
		}
		if got := string(w.Want()); got != tt.want {
			t.Errorf("%s want: got %s, want %s", tt.name, got, tt.want)
		}
	}
	var calls struct{ Calls, Cents int }
	w, _ := Lookup("calls1000")
	if err := json.Unmarshal(w.Want(), &calls); err != nil || calls.Calls != 1000 || calls.Cents <= 0 {
		t.Errorf("calls1000 want: got %s (%v)", w.Want(), err)
	}
}

func TestParseWorkloads(t *testing.T) {
	tests := []struct {
		list    string
		want    string
		wantErr string
	}{
		{"", "trivial,calls10,parallel10,cpu,data,repl", ""},
		{"repl, cpu,repl", "repl,cpu", ""},
		{"calls1000,repl100k", "calls1000,repl100k", ""},
		{"repl10k,repl", "repl", ""},
		{"nope", "", `unknown workload "nope"`},
	}
	for _, tt := range tests {
		ws, err := ParseWorkloads(tt.list)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseWorkloads(%q): got error %v, want %q", tt.list, err, tt.wantErr)
			}
			continue
		}
		var names []string
		for _, w := range ws {
			names = append(names, w.Name)
		}
		if got := strings.Join(names, ","); err != nil || got != tt.want {
			t.Errorf("ParseWorkloads(%q): got %q, %v, want %q", tt.list, got, err, tt.want)
		}
	}
}

// TestFixtureWorkloads replays the checked-in recordings as workloads and
// checks every answer; a recording whose calls no longer answer as
// recorded fails its row, naming the call.
func TestFixtureWorkloads(t *testing.T) {
	ws, err := FixtureWorkloads(filepath.Join("..", "..", "..", "fixtures", "recordings"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		names = append(names, w.Name)
	}
	if got, want := strings.Join(names, ","), "fx-everything,fx-memory"; got != want {
		t.Fatalf("workloads: got %s, want %s", got, want)
	}

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "notes.txtar"), []byte(`-- fixture.json --
{"format": "codemode.fixture/v1", "server": "notes", "redact": []}
-- tools.json --
[{"name": "get", "inputSchema": {"type": "object", "properties": {"id": {"type": "number"}}}}]
-- calls/0001-get.json --
{"tool": "get", "arguments": {"id": "seven"}, "result": {"content": [{"type": "text", "text": "7"}]}, "atMs": 0, "ms": 1}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Engines: []string{"goja"}, Modes: []string{ModePerCall, ModePersistent}, N: 3, Warmup: 1,
		Workloads: []*Workload{}, FixtureDir: filepath.Join("..", "..", "..", "fixtures", "recordings")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 4 {
		t.Fatalf("rows: got %d, want 4", len(rep.Rows))
	}
	for _, row := range rep.Rows {
		if row.Error != "" || row.N != 3 || row.Calls == 0 || row.Param == 0 {
			t.Errorf("%s %s: got n=%d calls=%d bytes=%d error %q", row.Mode, row.Workload, row.N, row.Calls, row.Param, row.Error)
		}
	}
	rep, err = Run(context.Background(), Options{Engines: []string{"goja"}, Modes: []string{ModePerCall}, N: 3, Warmup: 1, Workloads: []*Workload{}, FixtureDir: bad})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || !strings.Contains(rep.Rows[0].Error, "mcp__notes__get failed (INVALID_ARGUMENTS") {
		t.Errorf("a recording that no longer answers: got %+v, want a row error naming the call", rep.Rows)
	}
	if _, err := FixtureWorkloads(t.TempDir()); err == nil {
		t.Error("FixtureWorkloads(empty dir): want an error")
	}
}
