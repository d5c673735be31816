package tools

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestTableViewsAndOwnership(t *testing.T) {
	var tb table[int]
	mustAdd := func(l Layer, name string, v int) func() {
		t.Helper()
		rm, err := tb.Add(l, name, v)
		if err != nil {
			t.Fatal(err)
		}
		return rm
	}
	mustAdd(GlobalLayer(), "mcp__fake__ticker", 1)
	mustAdd(PresetLayer("cm"), "code_run", 2)
	mustAdd(PresetLayer("cm"), "read", 3)
	mustAdd(PresetLayer("other"), "other_tool", 4)
	mustAdd(AgentLayer("a1"), "team_send", 5)
	mustAdd(GlobalLayer(), "shared", 6)
	mustAdd(PresetLayer("cm"), "shared", 7)
	if _, err := tb.Add(PresetLayer("cm"), "read", 9); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate: got %v, want ErrDuplicate", err)
	}
	if _, err := tb.Add(Layer{}, "x", 1); err == nil {
		t.Fatal("invalid layer accepted")
	}
	tests := []struct {
		name  string
		owned bool
	}{
		{"code_run", true},
		{"read", true},
		{"mcp__fake__ticker", false}, // global
		{"team_send", false},         // agent layer: neither view resolves it
		{"other_tool", false},        // another preset
		{"shared", false},            // the global view resolves it too
		{"missing", false},
	}
	for _, tt := range tests {
		if got := tb.Owned(tt.name, "cm"); got != tt.owned {
			t.Errorf("Owned(%q): got %v, want %v", tt.name, got, tt.owned)
		}
	}
	if v, _, _ := tb.Resolve("shared", view{Preset: "cm"}); v != 7 {
		t.Errorf("preset shadows global: got %d, want 7", v)
	}
	if v, l, ok := tb.Resolve("team_send", view{Preset: "cm", Agent: "a1"}); !ok || v != 5 || l != AgentLayer("a1") {
		t.Errorf("agent view: got %d %v %v", v, l, ok)
	}
	if _, ok := tb.Get("code_run"); ok {
		t.Error("global view sees a preset tool")
	}
	var names []string
	for _, it := range tb.List(view{Preset: "cm", Agent: "a1"}) {
		names = append(names, it.Name)
	}
	want := []string{"code_run", "read", "shared", "mcp__fake__ticker", "team_send"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("List: got %v, want %v", names, want)
	}
	for _, k := range []LayerKind{LayerGlobal, LayerPreset, LayerAgent, 9} {
		_ = k.String()
	}
	_ = PresetLayer("x").String() + GlobalLayer().String()
}

func TestTableRemove(t *testing.T) {
	var tb table[string]
	rm, _ := tb.Add(GlobalLayer(), "x", "first")
	rm()
	rm2, _ := tb.Add(GlobalLayer(), "x", "second")
	rm() // must not remove the second registration
	if v, ok := tb.Get("x"); !ok || v != "second" {
		t.Fatalf("got %q %v, want second", v, ok)
	}
	rm2()
	if _, ok := tb.Get("x"); ok {
		t.Fatal("not removed")
	}
	rmA, _ := tb.Add(AgentLayer("a"), "y", "1")
	rmA()
	rmA()
	if _, _, ok := tb.Resolve("y", view{Agent: "a"}); ok {
		t.Fatal("agent entry not removed")
	}
}

func TestSlot(t *testing.T) {
	var tb table[string]
	_, _ = tb.Add(GlobalLayer(), "before", "0")
	s, err := tb.Put(GlobalLayer(), "x", "first")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = tb.Add(GlobalLayer(), "after", "0")
	if _, err := tb.Put(GlobalLayer(), "x", "dup"); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("Put of a taken name: got %v, want ErrDuplicate", err)
	}
	if !s.Set("second") {
		t.Fatal("Set on a live slot failed")
	}
	if v, ok := tb.Get("x"); !ok || v != "second" {
		t.Fatalf("got %q %v, want second", v, ok)
	}
	var names []string
	for _, it := range tb.List(view{}) {
		names = append(names, it.Name)
	}
	if got := strings.Join(names, ","); got != "before,x,after" {
		t.Errorf("Set moved the entry: got %s", got)
	}
	s.Remove()
	if s.Set("third") {
		t.Fatal("Set after Remove succeeded")
	}
	if _, ok := tb.Get("x"); ok {
		t.Fatal("Set after Remove resurrected the entry")
	}
	s2, _ := tb.Put(GlobalLayer(), "x", "new")
	s.Remove() // the old slot must leave the new entry alone
	if v, _ := tb.Get("x"); v != "new" || !s2.Set("newer") {
		t.Fatalf("old slot touched the new entry: %q", v)
	}
}
