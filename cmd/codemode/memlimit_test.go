package main

import (
	"log/slog"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"testing"

	"github.com/codemode/codemode/runtime"
)

func TestSetGoMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1) // read
	defer debug.SetMemoryLimit(prev)
	log := slog.New(slog.DiscardHandler)
	gov := runtime.NewGovernor(1 << 30)
	tests := []struct {
		name      string
		gov       *runtime.Governor
		gomemlim  string // "" unset
		want      int64
		wantLimit int64 // Go's limit afterwards
	}{
		{name: "no governor", gov: nil, want: 0, wantLimit: prev},
		{name: "GOMEMLIMIT wins", gov: gov, gomemlim: "3GiB", want: 0, wantLimit: prev},
		{name: "from the budget", gov: gov, want: 1288490188, wantLimit: 1288490188},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			debug.SetMemoryLimit(prev)
			if tt.gomemlim != "" {
				t.Setenv("GOMEMLIMIT", tt.gomemlim)
			} else if v, ok := os.LookupEnv("GOMEMLIMIT"); ok {
				t.Setenv("GOMEMLIMIT", v) // restored after
				os.Unsetenv("GOMEMLIMIT")
			}
			got, stop := setGoMemoryLimit(tt.gov, log)
			defer stop()
			if got != tt.want {
				t.Fatalf("got %d, want %d", got, tt.want)
			}
			if got := debug.SetMemoryLimit(-1); got != tt.wantLimit {
				t.Fatalf("Go's limit is %d, want %d", got, tt.wantLimit)
			}
		})
	}
}

func TestGCPercentFor(t *testing.T) {
	const floor = 64 << 20
	for _, tt := range []struct {
		live int64
		want int
	}{
		{0, 100},                // nothing read yet
		{8 << 20, 700},          // 8 MiB live: grow to 64 MiB
		{16 << 20, 300},         // 16 MiB: to 64 MiB
		{32 << 20, 100},         // half the floor: GOGC=100 reaches it anyway
		{1 << 30, 100},          // large heaps keep Go's default
		{1 << 10, maxGCPercent}, // a tiny heap: bounded
		{floor/2 - 1<<20, 106},  // just under half
	} {
		if got := gcPercentFor(tt.live, floor); got != tt.want {
			t.Errorf("gcPercentFor(%d) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

// The tuner sets GOGC after a cycle, leaves it alone when GOGC is set, and
// stop restores 100.
func TestGCTuner(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	gogc := func() int { p := debug.SetGCPercent(100); debug.SetGCPercent(p); return p }
	if v, ok := os.LookupEnv("GOGC"); ok {
		t.Setenv("GOGC", v) // restored after
		os.Unsetenv("GOGC")
	}
	stop := startGCTuner(8<<30, log)
	// The test binary's live heap is a few MiB, far under the 64 MiB floor.
	if p := gogc(); p <= 100 {
		t.Errorf("GOGC after start: %d, want > 100", p)
	}
	goruntime.GC()
	goruntime.GC()
	if p := gogc(); p <= 100 {
		t.Errorf("GOGC after two cycles: %d, want > 100", p)
	}
	stop()
	if p := gogc(); p != 100 {
		t.Errorf("GOGC after stop: %d, want 100", p)
	}
	t.Setenv("GOGC", "150")
	debug.SetGCPercent(150)
	defer debug.SetGCPercent(100)
	defer startGCTuner(8<<30, log)()
	goruntime.GC()
	if p := gogc(); p != 150 {
		t.Errorf("GOGC with GOGC=150 set: %d", p)
	}
}
