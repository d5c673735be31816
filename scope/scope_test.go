package scope

import (
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

func TestKindString(t *testing.T) {
	for _, k := range []Kind{KindHost, KindPreset, KindAgent, KindPlugin, 9} {
		if k.String() == "" {
			t.Errorf("Kind(%d) has no name", k)
		}
	}
}
