package runtime

import (
	"testing"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

// TestExplainWordsEngineFailuresAlike: the engines' own words for the same
// cause (as goja and QuickJS put them) become one message, deterministic
// whatever the machine's load.
func TestExplainWordsEngineFailuresAlike(t *testing.T) {
	server := Limits{Timeout: 30 * time.Second, MemoryBytes: 64 << 20}.WithDefaults()
	tests := []struct {
		name    string
		code    errs.Code
		engines []string // the engines' messages for the cause
		want    string
	}{
		{"memory", errs.CodeMemoryLimit, []string{"the program exceeded its memory budget of 64 MiB", "the program exceeded its memory limit of 64 MiB"},
			"the program exceeded its memory budget of 64 MiB: hold less at once (process results as they arrive, keep summaries rather than whole responses)"},
		{"stack", errs.CodeStackOverflow, []string{"Maximum call stack size exceeded: the program recursed deeper than 1000 calls", "the program recursed too deep (the engine's call stack overflowed); the environment was discarded"},
			msgStackOverflow},
		{"never settles", errs.CodeRuntimeError, []string{"the program's promise can never settle: it awaits something no tool call or timer will resolve", "the program's promise can never settle: it is waiting, but no tool call is in flight and nothing else can resume it"},
			msgNeverSettles},
		{"timeout", errs.CodeTimeout, []string{"the program exceeded its time limit (30s)", "the program did not finish before its deadline"},
			"the program ran out of time at its time limit of 30s; it was waiting for tools[\"slow\"] (nested call 2, started 1s into the program). Do less per program: split the work over several code_run calls, or make fewer or faster calls"},
	}
	for _, tt := range tests {
		for _, msg := range tt.engines {
			start := time.Now().Add(-31 * time.Second)
			r := &recorder{limits: server, start: start}
			r.spans = []*span{
				{n: 1, name: "fast", start: start.Add(100 * time.Millisecond), end: start.Add(200 * time.Millisecond)},
				{n: 2, name: "slow", start: start.Add(time.Second)}, // in flight at the deadline
			}
			got := r.explain(&errs.Error{Code: tt.code, Message: msg, Info: map[string]any{"line": 3}}, server, start.Add(server.Timeout), false)
			if got.Code != tt.code || got.Message != tt.want || got.Info["line"] != 3 {
				t.Errorf("%s, from %q:\ngot  %s %q %v\nwant %s %q", tt.name, msg, got.Code, got.Message, got.Info, tt.code, tt.want)
			}
		}
	}
	// A TIMEOUT before the program's deadline (a tool's own) is the tool's.
	r := &recorder{limits: server, start: time.Now()}
	own := &errs.Error{Code: errs.CodeTimeout, Message: "tool x timed out waiting for upstream server \"s\""}
	if got := r.explain(own, server, time.Now().Add(time.Hour), false); got != own {
		t.Errorf("a tool's own timeout was reworded: %q", got.Message)
	}
}
