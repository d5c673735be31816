package engine

import (
	"context"
	"sync/atomic"
	"testing"
)

// reusableVM is a fakeVM the pool may give a fresh realm and hand out again.
type reusableVM struct{ fakeVM }

func (v *reusableVM) Reusable() bool { return true }

// countingDriver builds reusableVMs and counts what it builds and resets.
type countingDriver struct{ built, reset atomic.Int64 }

func (d *countingDriver) NewVM() (VM, error) { d.built.Add(1); return &reusableVM{}, nil }
func (d *countingDriver) Reset(VM) error     { d.reset.Add(1); return nil }
func (d *countingDriver) Close() error       { return nil }

// TestPoolKeepsWhatTheLoadNeeds: N per-call environments open at once
// reuse N VMs when they are opened again (released VMs are not closed
// because the pool is full), and a trim period after the load is gone the
// engine keeps PoolSize of them. Persistent environments do not raise what
// is kept.
func TestPoolKeepsWhatTheLoadNeeds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pool, at   int // PoolSize, environments open at once
		persistent bool
	}{
		{"one at a time", 2, 1, false},
		{"eight at once", 2, 8, false},
		{"thirty at once", 4, 30, false},
		{"eight persistent at once", 2, 8, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &countingDriver{}
			b := NewStopped(Capabilities{Name: "fake", PoolSize: tc.pool}, d)
			t.Cleanup(func() { b.Close() })
			b.Fill()
			open := func() {
				t.Helper()
				envs := make([]Env, tc.at)
				for k := range envs {
					env, err := b.NewEnv(context.Background(), EnvOptions{Persistent: tc.persistent})
					if err != nil {
						t.Fatal(err)
					}
					envs[k] = env
				}
				for _, env := range envs {
					env.Close()
				}
			}
			open()
			if tc.persistent {
				b.mu.Lock()
				recycled := len(b.recycle)
				b.mu.Unlock()
				if recycled > tc.pool {
					t.Errorf("%d VMs of closed persistent environments kept, want at most the pool's %d", recycled, tc.pool)
				}
				return
			}
			built := d.built.Load()
			if want := int64(max(tc.pool, tc.at)); built != want {
				t.Fatalf("built %d VMs for %d environments at once with a pool of %d, want %d", built, tc.at, tc.pool, want)
			}
			for range 3 {
				open()
				b.Fill()
			}
			if got := d.built.Load(); got != built {
				t.Errorf("built %d more VMs for the same load: released VMs were closed", got-built)
			}
			parked := func() int {
				b.mu.Lock()
				defer b.mu.Unlock()
				return len(b.idle) + len(b.recycle)
			}
			if got := parked(); int64(got) != built {
				t.Errorf("%d VMs parked after the load, want all %d", got, built)
			}
			b.trim() // the period of the load ends: its peak still counts
			if got := parked(); int64(got) != built {
				t.Errorf("%d VMs parked after one trim, want all %d", got, built)
			}
			b.trim() // a whole period without load
			if got := parked(); got != tc.pool {
				t.Errorf("%d VMs parked after a period without load, want the pool's %d", got, tc.pool)
			}
		})
	}
}
