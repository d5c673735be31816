package tools

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestAssemble(t *testing.T) {
	r := New(Options{})
	noop := func(ctx context.Context, e *Execution) (*Result, error) { return nil, nil }
	r.Register(PresetLayer("std"), Tool{Name: "read", Handler: noop})
	r.Register(GlobalLayer(), Tool{Name: "mcp__fake__ticker", Handler: noop})
	r.Register(AgentLayer("a1"), Tool{Name: "team_send", Handler: noop})
	r.Register(AgentLayer("a2"), Tool{Name: "other_agent_tool", Handler: noop})
	r.AddSection(GlobalLayer(), Section{Name: "intro", Text: "hello"})
	r.AddSection(PresetLayer("std"), Section{Name: "tools:sdk", Text: "sdk"})
	mustCtx := func(l Layer, c PromptContext) {
		t.Helper()
		if _, err := r.AddContext(l, c); err != nil {
			t.Fatal(err)
		}
	}
	mustCtx(GlobalLayer(), PromptContext{Name: "sandbox:policy", Order: 110, Text: "sandbox"})
	mustCtx(GlobalLayer(), PromptContext{Name: "working-directory", Order: 100, Text: "cwd", Required: true})
	mustCtx(GlobalLayer(), PromptContext{Name: "empty", Order: 1, Text: ""})
	mustCtx(PresetLayer("std"), PromptContext{Name: "probe", Order: 550, TextFunc: func(a *Agent) string { return "agent=" + a.ID() }})
	mustCtx(AgentLayer("a1"), PromptContext{Name: "team", Order: 125, Text: "team"})

	agent := &Agent{id: "a1", preset: "std"}
	tests := []struct {
		name         string
		opts         AssembleOptions
		wantTools    []string
		wantContexts []string
	}{
		{"normal", AssembleOptions{}, []string{"read", "mcp__fake__ticker", "team_send"}, []string{"working-directory", "sandbox:policy", "team", "probe"}},
		{"suppressed keeps required", AssembleOptions{SuppressContext: true}, []string{"read", "mcp__fake__ticker", "team_send"}, []string{"working-directory"}},
	}
	for _, tt := range tests {
		a, err := r.Assemble(context.Background(), agent, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		var tools, ctxs []string
		for _, w := range a.Tools {
			tools = append(tools, w.Name)
		}
		for _, c := range a.Contexts {
			ctxs = append(ctxs, c.Name)
		}
		if !reflect.DeepEqual(tools, tt.wantTools) {
			t.Errorf("%s: tools: got %v, want %v", tt.name, tools, tt.wantTools)
		}
		if !reflect.DeepEqual(ctxs, tt.wantContexts) {
			t.Errorf("%s: contexts: got %v, want %v", tt.name, ctxs, tt.wantContexts)
		}
		if len(a.Sections) != 2 {
			t.Errorf("%s: got %d sections, want 2", tt.name, len(a.Sections))
		}
	}
	a, _ := r.Assemble(context.Background(), agent, AssembleOptions{})
	if a.Contexts[3].Text != "agent=a1" {
		t.Errorf("TextFunc: got %q", a.Contexts[3].Text)
	}
}

func TestAssembleContextErrors(t *testing.T) {
	r := New(Options{})
	for _, order := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := r.AddContext(GlobalLayer(), PromptContext{Name: "x", Order: order, Text: "t"}); err == nil || !strings.Contains(err.Error(), "finite") {
			t.Errorf("order %v: got %v, want a finite-order error", order, err)
		}
	}
	if _, err := r.AddContext(GlobalLayer(), PromptContext{Name: "x", Order: 1, Text: "t"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddContext(GlobalLayer(), PromptContext{Name: "x", Order: 2, Text: "t"}); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("duplicate: got %v", err)
	}
	if _, err := r.AddContext(AgentLayer("a"), PromptContext{Name: "x", Order: 2, Text: "t"}); err != nil {
		t.Errorf("same name in another layer: got %v", err)
	}
	if _, err := r.AddSection(GlobalLayer(), Section{Name: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddSection(GlobalLayer(), Section{Name: "s"}); err == nil {
		t.Error("duplicate section accepted")
	}
	if _, err := r.AddSection(GlobalLayer(), Section{}); err == nil {
		t.Error("empty section name accepted")
	}
	if _, err := r.AddContext(GlobalLayer(), PromptContext{}); err == nil {
		t.Error("empty context name accepted")
	}
}

func TestAssembleWaterfall(t *testing.T) {
	r := New(Options{})
	noop := func(ctx context.Context, e *Execution) (*Result, error) { return nil, nil }
	r.Register(GlobalLayer(), Tool{Name: "a", Handler: noop})
	r.Register(GlobalLayer(), Tool{Name: "b", Handler: noop})
	var order []string
	r.OnAssemble(func(ctx context.Context, agent *Agent, next func() (*Assembly, error)) (*Assembly, error) {
		order = append(order, "outer")
		a, err := next()
		if err != nil {
			return nil, err
		}
		a.Sections = append(a.Sections, Section{Name: "added", Text: "x"})
		return a, nil
	})
	remove := r.OnAssemble(func(ctx context.Context, agent *Agent, next func() (*Assembly, error)) (*Assembly, error) {
		order = append(order, "inner")
		a, err := next()
		if err != nil {
			return nil, err
		}
		a.Tools = a.Tools[1:] // drop "a"
		return a, nil
	})
	a, err := r.Assemble(context.Background(), nil, AssembleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Tools) != 1 || a.Tools[0].Name != "b" || len(a.Sections) != 1 || !reflect.DeepEqual(order, []string{"outer", "inner"}) {
		t.Fatalf("got %+v, order %v", a, order)
	}
	remove()
	a, _ = r.Assemble(context.Background(), nil, AssembleOptions{})
	if len(a.Tools) != 2 {
		t.Fatalf("after remove: got %d tools, want 2", len(a.Tools))
	}
	r.OnAssemble(func(ctx context.Context, agent *Agent, next func() (*Assembly, error)) (*Assembly, error) {
		panic("hook bug")
	})
	if _, err := r.Assemble(context.Background(), nil, AssembleOptions{}); err == nil || !strings.Contains(err.Error(), "hook bug") {
		t.Fatalf("panicking hook: got %v", err)
	}
}
