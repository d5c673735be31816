package quickjs

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetratelabs/wazero/api"
)

// Snapshot is the state of an Instance between two calls: its linear
// memory and mutable globals (and the few pointers the Instance keeps).
// Restoring it makes an instance byte for byte what the snapshotted one
// was, whatever ran in it since.
//
// Why snapshots? A fresh JSContext with the engine's prelude costs about
// 2.5 ms of CPU (parsing and running the prelude, building the context's
// intrinsics); restoring a snapshot taken right after that costs one mmap
// and the page faults of the pages the next program touches. Isolation is
// stronger too: the whole JSRuntime (atoms, shapes, the allocator) is
// reset, not only the context. The rejected alternative, QuickJS bytecode
// for the prelude, is out of reach of this build: QTS_bjson_encode writes
// without JS_WRITE_OBJ_BYTECODE and nothing exported runs bytecode
// (JS_EvalFunction).
//
// A Snapshot may be restored into any Instance of the same Runtime, from
// several goroutines at once. Close it when no more restores will happen;
// instances restored from it keep working.
type Snapshot struct {
	mem     *memSnapshot
	size    uint32 // bytes of memory in the snapshot
	globals []uint64

	rt, undefined, scratch uint32
	maxStack               uint32
}

// ErrSnapshotUnsupported is returned by Snapshot where the linear memory
// cannot be mapped copy-on-write (outside Linux, or when the memory fell
// back to the Go heap).
var ErrSnapshotUnsupported = errors.New("quickjs: snapshots are not supported on this platform")

// Snapshot captures the instance's state. Call it between calls, on the
// goroutine that drives the instance.
func (i *Instance) Snapshot() (*Snapshot, error) {
	if i.broken != nil {
		return nil, i.broken
	}
	if _, ok := i.lm.(restorer); !ok {
		return nil, ErrSnapshotUnsupported
	}
	size := i.mem.Size()
	buf, ok := i.mem.Read(0, size)
	if !ok {
		return nil, errors.New("quickjs: cannot read the memory")
	}
	s := &Snapshot{size: size, rt: i.rt, undefined: i.undefined, scratch: i.scratch, maxStack: i.maxStack}
	for _, name := range i.r.globals {
		g := i.mod.ExportedGlobal(name)
		if g == nil {
			return nil, fmt.Errorf("quickjs: global %s is not exported", name)
		}
		s.globals = append(s.globals, g.Get())
	}
	m, err := newMemSnapshot(buf)
	if err != nil {
		return nil, fmt.Errorf("quickjs: snapshotting the memory: %w", err)
	}
	s.mem = m
	return s, nil
}

// restorer is a linear memory that can map a snapshot (mmapMemory).
type restorer interface {
	restore(s *memSnapshot, size, cur uint32) error
}

// Close releases the snapshot's copy of the memory.
func (s *Snapshot) Close() error { return s.mem.close() }

// Restore resets the instance to the snapshot. The memory keeps its size
// (wasm memory never shrinks; pages past the snapshot read as zero). Any
// failure breaks the instance.
func (i *Instance) Restore(s *Snapshot) error {
	if i.broken != nil {
		return i.broken
	}
	if i.stopped.Load() {
		i.broken = errors.New("quickjs: instance stopped")
		return i.broken
	}
	m, ok := i.lm.(restorer)
	if !ok {
		return ErrSnapshotUnsupported
	}
	if cur := i.mem.Size(); cur < s.size {
		if _, ok := i.mem.Grow((s.size - cur) / pageSize); !ok {
			i.broken = errors.New("quickjs: cannot grow the memory to the snapshot's size")
			return i.broken
		}
	}
	if err := m.restore(s.mem, s.size, i.mem.Size()); err != nil {
		i.broken = fmt.Errorf("quickjs: restoring a snapshot: %w", err)
		return i.broken
	}
	for k, name := range i.r.globals {
		g, ok := i.mod.ExportedGlobal(name).(api.MutableGlobal)
		if !ok {
			i.broken = fmt.Errorf("quickjs: global %s is not exported as mutable", name)
			return i.broken
		}
		g.Set(s.globals[k])
	}
	i.rt, i.undefined, i.scratch, i.maxStack = s.rt, s.undefined, s.scratch, s.maxStack
	i.refused = false
	i.exited = false
	i.stderr.Reset()
	return nil
}

// NewInstanceFrom instantiates the module and restores s into it, skipping
// the constructors and everything made since (see NewInstance).
func (r *Runtime) NewInstanceFrom(ctx context.Context, s *Snapshot) (*Instance, error) {
	inst, err := r.instantiate(ctx)
	if err != nil {
		return nil, err
	}
	if err := inst.Restore(s); err != nil {
		inst.Close()
		return nil, err
	}
	return inst, nil
}
