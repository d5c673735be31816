package scope

import (
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestDisposeOrder(t *testing.T) {
	host := NewHost("host")
	preset := host.Child(KindPreset, "codemode")
	agent := preset.Child(KindAgent, "a1")
	var got []string
	var mu sync.Mutex
	rec := func(s string) func() {
		return func() { mu.Lock(); got = append(got, s); mu.Unlock() }
	}
	preset.Effect(rec("preset-1"))
	preset.Effect(rec("preset-2"))
	agent.Effect(rec("agent-1"))
	release := preset.Effect(rec("released"))
	release()
	release() // idempotent
	if err := preset.Dispose(); err != nil {
		t.Fatal(err)
	}
	want := []string{"released", "preset-2", "preset-1", "agent-1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if !agent.Disposed() {
		t.Fatal("child not disposed")
	}
	select {
	case <-agent.Done():
	default:
		t.Fatal("child Done not closed")
	}
	// Idempotent: nothing runs twice.
	if err := preset.Dispose(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %v after second dispose", got)
	}
	// Late effects run at once; late children are born disposed.
	ran := false
	preset.Effect(func() { ran = true })
	if !ran {
		t.Fatal("late effect did not run")
	}
	if c := preset.Child(KindAgent, "late"); !c.Disposed() {
		t.Fatal("late child not disposed")
	}
	// The host forgot the disposed preset.
	if len(host.children) != 0 {
		t.Fatalf("host still has %d children", len(host.children))
	}
}

func TestDisposeWaitsAndPanics(t *testing.T) {
	s := NewHost("h")
	block := make(chan struct{})
	started := make(chan struct{})
	s.Effect(func() { panic("boom") })
	s.Effect(func() { close(started); <-block })
	errc := make(chan error)
	go func() { errc <- s.Dispose() }()
	<-started
	second := make(chan error)
	go func() { second <- s.Dispose() }()
	select {
	case <-second:
		t.Fatal("second Dispose returned before the first finished")
	case <-s.Done():
		t.Fatal("Done closed early")
	default:
	}
	close(block)
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("got %v, want the panic", err)
	}
	if err := <-second; err != nil {
		t.Fatalf("second dispose: got %v, want nil", err)
	}
}

func TestNearest(t *testing.T) {
	host := NewHost("h")
	preset := host.Child(KindPreset, "p")
	plugin := preset.Child(KindPlugin, "codemode")
	hostPlugin := host.Child(KindPlugin, "codemode")
	if got := plugin.Nearest(KindPreset); got != preset {
		t.Fatalf("got %v, want %v", got, preset)
	}
	if got := hostPlugin.Nearest(KindPreset); got != nil {
		t.Fatalf("got %v, want nil", got)
	}
	if plugin.Label() != "codemode" || plugin.Kind() != KindPlugin || plugin.Parent() != preset || plugin.ID() == preset.ID() {
		t.Fatal("accessors")
	}
	_ = plugin.String()
}

func TestTableViewsAndOwnership(t *testing.T) {
	var tb Table[int]
	mustAdd := func(l Layer, name string, v int) func() {
		t.Helper()
		rm, err := tb.Add(l, name, v)
		if err != nil {
			t.Fatal(err)
		}
		return rm
	}
	mustAdd(Global(), "mcp__fake__ticker", 1)
	mustAdd(Preset("cm"), "code_run", 2)
	mustAdd(Preset("cm"), "read", 3)
	mustAdd(Preset("other"), "other_tool", 4)
	mustAdd(Agent("a1"), "team_send", 5)
	mustAdd(Global(), "shared", 6)
	mustAdd(Preset("cm"), "shared", 7)
	if _, err := tb.Add(Preset("cm"), "read", 9); !errors.Is(err, ErrDuplicate) {
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
	if v, _, _ := tb.Resolve("shared", View{Preset: "cm"}); v != 7 {
		t.Errorf("preset shadows global: got %d, want 7", v)
	}
	if v, l, ok := tb.Resolve("team_send", View{Preset: "cm", Agent: "a1"}); !ok || v != 5 || l != Agent("a1") {
		t.Errorf("agent view: got %d %v %v", v, l, ok)
	}
	if _, ok := tb.Get("code_run"); ok {
		t.Error("global view sees a preset tool")
	}
	var names []string
	for _, it := range tb.List(View{Preset: "cm", Agent: "a1"}) {
		names = append(names, it.Name)
	}
	want := []string{"code_run", "read", "shared", "mcp__fake__ticker", "team_send"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("List: got %v, want %v", names, want)
	}
	for _, k := range []LayerKind{LayerGlobal, LayerPreset, LayerAgent, 9} {
		_ = k.String()
	}
	_ = Preset("x").String() + Global().String()
	for _, k := range []Kind{KindHost, KindPreset, KindAgent, KindPlugin, 9} {
		_ = k.String()
	}
}

func TestTableRemove(t *testing.T) {
	var tb Table[string]
	rm, _ := tb.Add(Global(), "x", "first")
	rm()
	rm2, _ := tb.Add(Global(), "x", "second")
	rm() // must not remove the second registration
	if v, ok := tb.Get("x"); !ok || v != "second" {
		t.Fatalf("got %q %v, want second", v, ok)
	}
	rm2()
	if _, ok := tb.Get("x"); ok {
		t.Fatal("not removed")
	}
	rmA, _ := tb.Add(Agent("a"), "y", "1")
	rmA()
	rmA()
	if _, _, ok := tb.Resolve("y", View{Agent: "a"}); ok {
		t.Fatal("agent entry not removed")
	}
}

func TestSlot(t *testing.T) {
	var tb Table[string]
	_, _ = tb.Add(Global(), "before", "0")
	s, err := tb.Put(Global(), "x", "first")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = tb.Add(Global(), "after", "0")
	if _, err := tb.Put(Global(), "x", "dup"); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("Put of a taken name: got %v, want ErrDuplicate", err)
	}
	if !s.Set("second") {
		t.Fatal("Set on a live slot failed")
	}
	if v, ok := tb.Get("x"); !ok || v != "second" {
		t.Fatalf("got %q %v, want second", v, ok)
	}
	var names []string
	for _, it := range tb.List(View{}) {
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
	s2, _ := tb.Put(Global(), "x", "new")
	s.Remove() // the old slot must leave the new entry alone
	if v, _ := tb.Get("x"); v != "new" || !s2.Set("newer") {
		t.Fatalf("old slot touched the new entry: %q", v)
	}
}

func TestOnDispose(t *testing.T) {
	s := NewHost("h")
	ran := 0
	cancel := s.OnDispose(func() { ran++ })
	keep := s.OnDispose(func() { ran += 10 })
	_ = keep
	if s.Effects() != 2 {
		t.Fatalf("got %d effects, want 2", s.Effects())
	}
	cancel() // forgets without running
	cancel()
	if ran != 0 || s.Effects() != 1 {
		t.Fatalf("cancel ran the effect or kept it: ran %d, %d effects", ran, s.Effects())
	}
	s.Dispose()
	if ran != 10 {
		t.Fatalf("got ran %d, want 10", ran)
	}
	late := false
	s.OnDispose(func() { late = true })() // on a disposed scope: runs at once; cancel is a no-op
	if !late {
		t.Fatal("late OnDispose did not run")
	}
}
