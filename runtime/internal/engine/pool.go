package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/codemode/codemode/tools/errs"
)

// Base is the engine every Driver plugs into: it implements [Engine] over
// VMs, with a warm pool, the VM goroutines ([Workers]) and, through its
// environments, the event loop, the nested-call scheduler, the timers
// and the classification of failures.
//
// # The pool
//
// Capabilities.PoolSize VMs are kept warm, so that NewEnv is a hand-over.
// A filler goroutine builds them one at a time, off the request path and
// never on more than one core. When an environment closes, a VM that
// reports Reusable goes to a recycle queue, and the filler (or NewEnv, when
// the pool is empty) gives it a fresh realm with Driver.Reset, which costs
// less than a new VM; any other VM is closed. A VM is handed only to an
// environment whose memory limit it fits (VM.Fits).
//
// How many released VMs are kept follows the per-call load: besides
// PoolSize of them, the engine keeps as many VMs (handed to per-call
// environments, warm or released) as the most per-call environments open
// at once during the last trim period, so that N sessions running per-call
// programs side by side reuse N VMs instead of closing and building one
// for most calls. Every trimPeriod the filler closes the released VMs that
// the last period's peak did not need. Persistent environments do not
// count: their VMs are kept only within PoolSize when they close.
type Base struct {
	caps    Capabilities
	drv     Driver
	grace   time.Duration
	workers *Workers

	mu      sync.Mutex
	idle    []VM // warm, ready for NewEnv
	recycle []VM // released by environments, waiting for Reset
	out     int  // VMs handed to environments and not released
	calls   int  // of out, VMs handed to per-call environments
	peak    int  // the most per-call VMs out at once since the last trim
	before  int  // peak of the period before that
	closed  bool
	kick    chan struct{} // wakes the filler
	stop    chan struct{} // closed by Close
	filler  sync.WaitGroup
	drvOnce sync.Once
	drvErr  error

	// Filled, if set before Start, is told each time the filler has done
	// all there was to do (tests wait on it instead of sleeping).
	Filled chan<- struct{}
	// Busy is true while the filler works (tests).
	Busy atomic.Bool

	// abandoned counts runs abandoned at their hard stop whose goroutine
	// still drives their VM (see Capabilities.MaxAbandoned).
	abandoned atomic.Int64
}

// Abandoned reports how many abandoned runs still keep their VM busy.
func (b *Base) Abandoned() int { return int(b.abandoned.Load()) }

// overloaded returns the OVERLOADED error while the abandoned runs are at
// their bound, or nil.
func (b *Base) overloaded() *errs.Error {
	limit := b.caps.MaxAbandoned
	if limit == 0 {
		limit = DefaultMaxAbandoned
	}
	if limit < 0 {
		return nil
	}
	n := b.abandoned.Load()
	if n < int64(limit) {
		return nil
	}
	return errs.Errorf(errs.CodeOverloaded, "the %s engine is busy: %d earlier programs stopped at their deadline are still finishing a built-in call that cannot be interrupted (the bound is %d at once); retry in a few seconds", b.caps.Name, n, limit)
}

var _ Engine = (*Base)(nil)

// New returns a started Base over d.
func New(caps Capabilities, d Driver) *Base {
	b := NewStopped(caps, d)
	b.Start()
	return b
}

// NewStopped returns a Base whose filler is not started: Fill does its
// work on the caller's goroutine (benchmarks), Start starts it.
func NewStopped(caps Capabilities, d Driver) *Base {
	if caps.PoolSize == 0 {
		caps.PoolSize = 2
	}
	b := &Base{caps: caps, drv: d, grace: caps.Grace, workers: NewWorkers(),
		kick: make(chan struct{}, 1), stop: make(chan struct{})}
	if b.grace <= 0 {
		b.grace = Grace
	}
	return b
}

// Start starts the filler.
func (b *Base) Start() {
	if b.caps.PoolSize > 0 {
		b.filler.Add(1)
		go b.fill()
		b.wake()
	}
}

func (b *Base) wake() {
	select {
	case b.kick <- struct{}{}:
	default:
	}
}

// trimPeriod is how often the filler closes the released VMs that the
// load no longer needs (see Base).
const trimPeriod = 10 * time.Second

func (b *Base) fill() {
	defer b.filler.Done()
	tick := time.NewTicker(trimPeriod)
	defer tick.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-b.kick:
		case <-tick.C:
			b.trim()
			continue
		}
		b.Busy.Store(true)
		b.Fill()
		b.Busy.Store(false)
		if b.Filled != nil {
			select {
			case b.Filled <- struct{}{}:
			case <-b.stop:
			}
		}
	}
}

// Fill does the filler's work on the calling goroutine: it fills the pool,
// preferring released VMs.
func (b *Base) Fill() {
	for b.fillOne() {
	}
}

// fillOne adds one warm VM to the pool; false when there is nothing to do.
func (b *Base) fillOne() bool {
	b.mu.Lock()
	if b.closed || len(b.idle) >= b.caps.PoolSize {
		b.mu.Unlock()
		return false
	}
	var v VM
	if n := len(b.recycle); n > 0 {
		v = b.recycle[n-1]
		b.recycle = b.recycle[:n-1]
	}
	b.mu.Unlock()
	if v != nil {
		if err := b.drv.Reset(v); err != nil {
			v.Close()
			return true
		}
	} else {
		nv, err := b.drv.NewVM()
		if err != nil {
			return false // NewEnv will report the error itself
		}
		v = nv
	}
	b.mu.Lock()
	if b.closed || len(b.idle) >= b.caps.PoolSize {
		b.mu.Unlock()
		v.Close()
		return true
	}
	b.idle = append(b.idle, v)
	b.mu.Unlock()
	return true
}

// keep is how many VMs the engine keeps for per-call environments,
// handed out or parked (called with mu).
func (b *Base) keep() int {
	return b.caps.PoolSize + max(b.peak, b.before)
}

// parked is the VMs ready or waiting for Reset (called with mu).
func (b *Base) parked() int { return len(b.idle) + len(b.recycle) }

// trim ends a trim period: released VMs beyond what the peak of the period
// just ended needs are closed, and a new period starts. The filler calls it
// every trimPeriod.
func (b *Base) trim() {
	b.mu.Lock()
	b.before, b.peak = b.peak, b.calls
	var surplus []VM
	for len(b.recycle) > 0 && b.calls+b.parked() > b.keep() {
		n := len(b.recycle)
		surplus = append(surplus, b.recycle[n-1])
		b.recycle = b.recycle[:n-1]
	}
	b.mu.Unlock()
	for _, v := range surplus {
		v.Close()
	}
}

// config applies the engine's defaults to an environment's options.
func (b *Base) config(o EnvOptions) VMConfig {
	c := VMConfig{Persistent: o.Persistent, MemoryLimit: o.MemoryLimit, MaxStackDepth: o.MaxStackDepth,
		MaxCodeBytes: o.MaxCodeBytes, MaxNestingDepth: o.MaxNestingDepth}
	if c.MemoryLimit <= 0 {
		c.MemoryLimit = b.caps.MemoryLimit
	}
	if c.MaxStackDepth <= 0 {
		c.MaxStackDepth = b.caps.MaxStackDepth
	}
	return c
}

// NewEnv implements Engine: a warm VM that fits, else a released one reset
// here, else a new one built here.
func (b *Base) NewEnv(ctx context.Context, opts EnvOptions) (Env, error) {
	if err := ctx.Err(); err != nil {
		return nil, errs.AsError(err)
	}
	cfg := b.config(opts)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, &errs.Error{Code: errs.CodeInternal, Message: b.caps.Name + " engine: closed"}
	}
	var v, reused VM
	for len(b.idle) > 0 && v == nil {
		n := len(b.idle)
		v = b.idle[n-1]
		b.idle = b.idle[:n-1]
		if !v.Fits(cfg.MemoryLimit) {
			b.recycle = append(b.recycle, v) // grown past this limit: no use here
			v = nil
		}
	}
	if v == nil {
		for k := len(b.recycle) - 1; k >= 0; k-- {
			if b.recycle[k].Fits(cfg.MemoryLimit) {
				reused = b.recycle[k]
				b.recycle = append(b.recycle[:k], b.recycle[k+1:]...)
				break
			}
		}
	}
	b.out++
	if !cfg.Persistent {
		b.calls++
		b.peak = max(b.peak, b.calls)
	}
	b.mu.Unlock()
	b.wake()
	if reused != nil {
		if err := b.drv.Reset(reused); err != nil {
			reused.Close()
		} else {
			v = reused
		}
	}
	if v == nil {
		nv, err := b.drv.NewVM()
		if err != nil {
			b.release(nil, false, !cfg.Persistent)
			return nil, err
		}
		v = nv
	}
	if err := v.Configure(cfg); err != nil {
		b.release(v, false, !cfg.Persistent)
		return nil, err
	}
	return &env{eng: b, cfg: cfg, vm: v, released: opts.Released}, nil
}

// release takes back a VM (nil if the environment had none): into the
// recycle queue when reuse is true and it can serve again, else closed.
// perCall says whether the environment was a per-call one. Called by the
// goroutine that drove v last.
func (b *Base) release(v VM, reuse, perCall bool) {
	b.mu.Lock()
	b.out--
	if perCall {
		b.calls--
	}
	reuse = reuse && v != nil && !b.closed && b.caps.PoolSize > 0 &&
		(len(b.recycle) < b.caps.PoolSize || perCall && b.calls+b.parked() < b.keep()) &&
		v.Reusable()
	if reuse {
		b.recycle = append(b.recycle, v)
	}
	last := b.closed && b.out == 0
	b.mu.Unlock()
	if reuse {
		b.wake()
	} else if v != nil {
		v.Close()
	}
	if last {
		b.closeDriver()
	}
}

func (b *Base) closeDriver() {
	b.drvOnce.Do(func() { b.drvErr = b.drv.Close() })
}

// Close implements Engine: it stops the filler, closes the pooled VMs, and
// closes the driver once every VM handed out is released too.
func (b *Base) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.stop)
	b.mu.Unlock()
	b.workers.Close()
	b.filler.Wait()
	b.mu.Lock()
	vms := append(b.idle, b.recycle...)
	b.idle, b.recycle = nil, nil
	last := b.out == 0
	b.mu.Unlock()
	for _, v := range vms {
		v.Close()
	}
	if last {
		b.closeDriver()
		return b.drvErr
	}
	return nil
}

// Driver returns the driver (tests).
func (b *Base) Driver() Driver { return b.drv }

// Name is the engine's name (Capabilities.Name).
func (b *Base) Name() string { return b.caps.Name }

// Warm reports how many VMs wait in the pool, ready for NewEnv (the
// runtime's readiness and metrics read it).
func (b *Base) Warm() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.idle)
}
