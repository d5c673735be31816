package codemode

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/codemode/codemode/internal/audit"
	"github.com/codemode/codemode/internal/policy"
	"github.com/codemode/codemode/ptc"
	"github.com/codemode/codemode/runtime"

	"github.com/codemode/codemode/tools"
)

// BenchmarkCodeRun measures code_run through the whole stack — Execute,
// the guard, the engine, and each nested call through ptc and Execute
// again — on a no-op tool.
//
//	go test -run '^$' -bench BenchmarkCodeRun -benchmem ./codemode
//
// In per-call mode a tight loop is bound by building runtimes for the pool
// on the other core; persistent mode shows the latency of the program and
// its nested calls alone, so (nested=10 − nested=0)/10 there is the added
// cost of one nested call. A program's first await costs more than the
// others (the async function suspends for the first time and its result
// settles through a promise job): await-only is that cost without a call,
// so nested=1 − await-only is the first call's own cost.
func BenchmarkCodeRun(b *testing.B) {
	for _, mode := range []runtime.Mode{runtime.ModePerCall, runtime.ModePersistent} {
		b.Run(string(mode), func(b *testing.B) { benchCodeRun(b, mode) })
	}
}

// noopHost mounts code mode in mode next to a global no-op tool,
// mcp__fake__noop, and returns the host and an agent of the preset.
func noopHost(b *testing.B, mode runtime.Mode) (*testHost, *tools.Agent) {
	h := newTestHost()
	b.Cleanup(func() { h.Close() })
	preset := h.Preset("codemode")
	if _, err := h.Registry.Register(tools.GlobalLayer(), tools.Tool{Name: "mcp__fake__noop", InputSchema: json.RawMessage(`{"type":"object"}`),
		Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
			return &tools.Result{Value: json.RawMessage(`1`)}, nil
		}}); err != nil {
		b.Fatal(err)
	}
	if _, err := Mount(h.Registry, preset, Options{Mode: mode}); err != nil {
		b.Fatal(err)
	}
	agent, err := h.NewAgent(preset, "bench")
	if err != nil {
		b.Fatal(err)
	}
	return h, agent
}

func benchCodeRun(b *testing.B, mode runtime.Mode) {
	h, agent := noopHost(b, mode)
	type program struct{ name, code string }
	programs := []program{{"await-only", "let s = 0; s += await 0; return s"}}
	for _, n := range []int{0, 1, 10} {
		programs = append(programs, program{fmt.Sprintf("nested=%d", n), fmt.Sprintf("let s = 0; for (let i = 0; i < %d; i++) s += await tools.mcp__fake__noop({}); return s", n)})
	}
	for _, p := range programs {
		code := p.code
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			args := map[string]any{"code": code}
			for b.Loop() {
				res := h.Registry.Execute(context.Background(), tools.Input{CallID: "b", Name: ToolCodeRun, Arguments: args, Agent: agent})
				if res.IsError {
					b.Fatal(res.TextOf())
				}
			}
		})
	}
}

// BenchmarkPTCCall is the registry side of one nested call: ptc, Execute
// with the code-mode guard installed, a no-op tool. The engine side is
// BenchmarkEngine in runtime/internal/gojaengine. policy+audit adds what
// an operator's configuration adds to every call: a 20-rule policy (the
// call matches the last rule, an allow; other rules have budgets, so the
// per-run bookkeeping is on) and the audit trail writing its line to a
// file, with the default redaction rules.
//
//	go test -run '^$' -bench BenchmarkPTCCall -benchmem ./codemode
func BenchmarkPTCCall(b *testing.B) {
	b.Run("bare", func(b *testing.B) { benchPTCCall(b, false, false) })
	b.Run("policy", func(b *testing.B) { benchPTCCall(b, true, false) })
	b.Run("audit", func(b *testing.B) { benchPTCCall(b, false, true) })
	b.Run("policy+audit", func(b *testing.B) { benchPTCCall(b, true, true) })
}

// benchRules are 19 rules a nested call of mcp__fake__noop does not match,
// then one that allows it.
func benchRules() []policy.Rule {
	yes, no := true, false
	var rules []policy.Rule
	for i := 0; len(rules) < 19; i++ {
		rules = append(rules,
			policy.Rule{Tool: fmt.Sprintf("mcp__github%d__delete_*", i), Action: "deny", Reason: "no deletes"},
			policy.Rule{Server: fmt.Sprintf("memory%d", i), Annotations: policy.Annotations{DestructiveHint: &yes}, Action: "ask"},
			policy.Rule{Tool: "mcp__fake__noop", Caller: "model", Action: "deny", MaxCallsPerRun: 3},
			policy.Rule{Tool: "mcp__*", Annotations: policy.Annotations{ReadOnlyHint: &yes, OpenWorldHint: &no}, Action: "allow", MaxCallsPerSession: 100},
		)
	}
	return append(rules[:19], policy.Rule{Tool: "mcp__fake__*", Caller: "program", Action: "allow"})
}

func benchPTCCall(b *testing.B, withPolicy, withAudit bool) {
	h, agent := ptcCallHost(b, withPolicy, withAudit)
	h.Registry.Register(tools.PresetLayer("codemode"), tools.Tool{Name: "parent", Handler: func(ctx context.Context, e *tools.Execution) (*tools.Result, error) {
		c := ptc.New(h.Registry, e, ptc.Options{})
		args := json.RawMessage(`{}`)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if _, _, err := c.Call(ctx, "mcp__fake__noop", args); err != nil {
				b.Fatal(err)
			}
		}
		return nil, nil
	}})
	if res := h.Registry.Execute(context.Background(), tools.Input{CallID: "p", Name: "parent", Agent: agent}); res.IsError {
		b.Fatal(res.TextOf())
	}
}

// ptcCallHost is noopHost with, on demand, the 20-rule policy and the
// audit trail (writing to a file, default redaction rules).
func ptcCallHost(b *testing.B, withPolicy, withAudit bool) (*testHost, *tools.Agent) {
	h, agent := noopHost(b, runtime.ModePerCall)
	if withAudit {
		trail, err := audit.Open(audit.Options{Config: audit.Config{Path: filepath.Join(b.TempDir(), "audit.jsonl")}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { trail.Close() })
		h.Registry.Use(trail.Middleware())
	}
	if withPolicy {
		p, err := policy.New(policy.Options{Spec: policy.Spec{Rules: benchRules()}})
		if err != nil {
			b.Fatal(err)
		}
		p.Install(h.Registry)
	}
	return h, agent
}
