package main

import (
	"log/slog"
	"os"
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
			if got := setGoMemoryLimit(tt.gov, log); got != tt.want {
				t.Fatalf("got %d, want %d", got, tt.want)
			}
			if got := debug.SetMemoryLimit(-1); got != tt.wantLimit {
				t.Fatalf("Go's limit is %d, want %d", got, tt.wantLimit)
			}
		})
	}
}
