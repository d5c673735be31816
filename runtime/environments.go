package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/codemode/codemode/runtime/internal/engine"
	"github.com/codemode/codemode/scope"
	"github.com/codemode/codemode/tools/errs"
	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Owner keys a persistent environment. It can only be obtained from
// [Environments.Owner], which registers its release in the same step, so
// "an owner whose release was never registered" cannot be expressed. The
// zero Owner means "no owner": runs get a fresh per-call environment.
type Owner struct{ o *owner }

// IsZero reports whether o is the zero Owner.
func (o Owner) IsZero() bool { return o.o == nil }

type ownerKey struct {
	agent    uint64 // the agent scope's ID
	provider string
}

type owner struct {
	key     ownerKey
	label   string // for logs: agent label + provider
	release func() // idempotent; runs on the first of: agent scope, plugin scope, Release

	// Guarded by Environments.mu.
	released bool
	cancels  []func() // drop the scope registrations
	// reset is why the owner's environment was discarded since its last
	// run, for the next run to report ("" if it was not).
	reset ResetCause
}

// ResetCause says why a persistent environment was discarded while its
// owner lives on: the owner's next run starts in a fresh one, where the
// top-level names of earlier programs are gone, and reports the cause in
// [Outcome.ResetCause] so that the program's author learns why.
type ResetCause string

// The causes.
const (
	// ResetRequested: [Environments.Reset] (code_run's "reset").
	ResetRequested ResetCause = "reset requested"
	// ResetTimeout: a program ran past its time limit, and the engine
	// discarded the environment to stop it.
	ResetTimeout ResetCause = "timeout"
	// ResetMemory: a program exceeded the memory budget.
	ResetMemory ResetCause = "memory"
	// ResetStackOverflow: a program overflowed the engine's stack, and
	// the engine discarded the environment.
	ResetStackOverflow ResetCause = "stack overflow"
	// ResetBroken: the environment failed in some other way.
	ResetBroken ResetCause = "broken"
	// ResetIdle: unused for [EnvOptions.IdleTTL].
	ResetIdle ResetCause = "idle"
	// ResetEvicted: [EnvOptions.MaxEnvironments] were live, and this one
	// was the least recently used.
	ResetEvicted ResetCause = "evicted"
	// ResetMemoryBudget: the process was at its memory budget (see
	// [Governor]) when another program was admitted, and this was the
	// least recently used idle environment.
	ResetMemoryBudget ResetCause = "evicted: process memory budget"
)

// minEnvCharge is the least a kept environment holds in the governor: a
// realm costs something even when its programs keep nothing (wazero's
// memory is at least 16 MiB and reports itself; a goja runtime with the
// prelude is about 1 MiB of heap).
const minEnvCharge = 1 << 20

// EnvOptions configures an Environments. A zero field means the default in
// its comment.
type EnvOptions struct {
	// MaxEnvironments bounds live persistent environments; the least
	// recently used is released past it. If zero, 64.
	MaxEnvironments int
	// IdleTTL releases an environment unused for this long. If zero, 15
	// minutes; negative disables idle expiry.
	IdleTTL time.Duration
}

// Environments holds the persistent-in-memory environments of one plugin
// instance: at most one per Owner, in a bounded LRU with idle expiry.
//
// Retention follows docs/contract.md#environments. Obtaining an Owner registers its release
// on the agent scope (an agent's disposal frees its environments even when
// the plugin is long gone) and on the plugin scope (unloading the plugin
// frees every leftover). LRU eviction and idle expiry go through the very
// same release. Evictions are logged.
type Environments struct {
	rt     *Runtime
	plugin *scope.Scope
	opts   EnvOptions
	log    *slog.Logger

	ownerMu sync.Mutex // serialises Owner creation
	mu      sync.Mutex
	owners  map[ownerKey]*owner
	lru     *simplelru.LRU[ownerKey, *penv]
	closed  bool
	reason  string     // why the LRU is evicting right now, for the log
	cause   ResetCause // and what the owner's next run is told ("" for nothing)
	evicted []*penv    // evicted under mu, closed by the evicting caller after unlocking

	evictions map[string]int64 // releases by reason (Evictions); guarded by mu

	stop chan struct{}
	wg   sync.WaitGroup
}

// penv is one persistent environment.
type penv struct {
	mu       sync.Mutex // serialises runs: one program at a time per environment
	env      engine.Env
	res      *reservation // its share of the governor's budget; closed when its VM goes
	lastUsed time.Time
	label    string
	globals  []string // after the last run; guarded by Environments.mu
}

// NewEnvironments creates the persistent environments of the plugin whose
// scope is plugin. Disposing plugin releases them all and stops the idle
// sweeper.
func (rt *Runtime) NewEnvironments(plugin *scope.Scope, opts EnvOptions) *Environments {
	if opts.MaxEnvironments <= 0 {
		opts.MaxEnvironments = 64
	}
	if opts.IdleTTL == 0 {
		opts.IdleTTL = 15 * time.Minute
	}
	es := &Environments{rt: rt, plugin: plugin, opts: opts, log: rt.log, owners: map[ownerKey]*owner{}, stop: make(chan struct{})}
	es.lru, _ = simplelru.NewLRU(opts.MaxEnvironments, es.onEvict)
	if opts.IdleTTL > 0 {
		es.wg.Add(1)
		go es.sweep()
	}
	plugin.Effect(es.close)
	rt.gov.register(es)
	return es
}

// Owner returns the owner for (agent, provider), creating it on first use.
// Creating it registers its release on agent and on the plugin scope; later
// calls return the same owner and register nothing more. A disposed agent
// scope yields an owner whose release has already run (its runs still work,
// in a fresh environment that is released at the end of each run).
func (es *Environments) Owner(agent *scope.Scope, provider string) Owner {
	key := ownerKey{agent: agent.ID(), provider: provider}
	es.ownerMu.Lock() // one creation at a time: de-duplication without races
	defer es.ownerMu.Unlock()
	es.mu.Lock()
	if o, ok := es.owners[key]; ok {
		es.mu.Unlock()
		return Owner{o}
	}
	es.mu.Unlock()

	o := &owner{key: key, label: agent.Label() + "/" + provider}
	var once sync.Once
	o.release = func() {
		once.Do(func() {
			es.mu.Lock()
			o.released = true
			if es.owners[key] == o {
				delete(es.owners, key)
			}
			cancels := o.cancels
			o.cancels = nil
			es.mu.Unlock()
			// Forget both registrations (without running them: this is
			// what they run), so nothing piles up on either scope.
			for _, cancel := range cancels {
				cancel()
			}
			es.releaseKey(key, "released", "")
		})
	}
	// One step: both registrations happen here, before the owner escapes.
	// On a disposed scope OnDispose runs the release at once.
	cancelPlugin := es.plugin.OnDispose(o.release)
	cancelAgent := agent.OnDispose(o.release)
	es.mu.Lock()
	if o.released {
		es.mu.Unlock()
		cancelPlugin()
		cancelAgent()
		return Owner{o}
	}
	o.cancels = []func(){cancelPlugin, cancelAgent}
	es.owners[key] = o
	es.mu.Unlock()
	return Owner{o}
}

// Release frees the owner's environment now and forgets the owner; the
// scopes' registrations are dropped. Idempotent.
func (es *Environments) Release(o Owner) {
	if o.o != nil {
		o.o.release()
	}
}

// Reset discards the owner's environment (the next run starts fresh) but
// keeps the owner.
func (es *Environments) Reset(o Owner) {
	if o.o != nil {
		es.releaseKey(o.o.key, "reset", ResetRequested)
	}
}

// Globals lists the top-level names a program declared in the owner's
// live environment, as of the end of its last run (sorted); nil when the
// owner has no environment (never ran, or it was discarded since). It does
// not touch recency and does not wait for a run in progress.
func (es *Environments) Globals(o Owner) []string {
	if o.o == nil {
		return nil
	}
	es.mu.Lock()
	defer es.mu.Unlock()
	pe, ok := es.lru.Peek(o.o.key)
	if !ok {
		return nil
	}
	return slices.Clone(pe.globals)
}

// Options reports the options in force, defaults applied.
func (es *Environments) Options() EnvOptions { return es.opts }

// Len reports the number of live environments.
func (es *Environments) Len() int {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.lru.Len()
}

// Run runs req in the owner's environment, creating it if needed. Runs of
// one owner are serialised. With the zero Owner it is Runtime.Run.
func (es *Environments) Run(ctx context.Context, o Owner, req Request) Outcome {
	if o.o == nil {
		return es.rt.Run(ctx, req)
	}
	start := time.Now()
	limits := es.rt.effective(req.Limits)
	if err := checkSize(req.Code, limits); err != nil {
		return Outcome{Err: err, Duration: time.Since(start)}
	}
	var pe *penv
	var fresh bool
	var cause ResetCause
	for {
		var err *errs.Error
		pe, fresh, cause, err = es.get(ctx, o.o, limits)
		if err != nil {
			return Outcome{Err: err, Duration: time.Since(start)}
		}
		pe.mu.Lock()
		if es.current(o.o.key, pe) {
			break
		}
		// Released between get and now (the governor took it, or it
		// expired): the next get makes a new one and reports why.
		pe.mu.Unlock()
	}
	// The run may grow the environment to its whole budget: top its
	// reservation up (a fresh one was reserved whole).
	if err := pe.res.grow(limits.MemoryBytes); err != nil {
		pe.mu.Unlock()
		return Outcome{Err: err, Duration: time.Since(start), Reset: fresh, ResetCause: cause}
	}
	out := es.rt.runIn(ctx, pe.env, req, limits, true)
	out.Globals = pe.env.Globals()
	usable := pe.env.Usable()
	retained := pe.env.Retained()
	// Back to what it holds now (nothing once its VM is gone: the
	// reservation closed with it).
	pe.res.set(max(retained, minEnvCharge))
	pe.lastUsed = time.Now()
	if !usable {
		// A broken environment (out of memory, crashed, abandoned after a
		// timeout) is never reused: the next run starts fresh. Released
		// before pe.mu is: a run of the same owner queued on pe.mu must
		// find it gone (and get a fresh one, told why), not run in it.
		cause := brokenCause(out.Err)
		if out.Err == nil && retained >= limits.MemoryBytes {
			// A run that succeeded but left the environment holding its
			// whole budget (goja measures this after the run).
			cause = ResetMemory
		}
		es.releaseKey(o.o.key, "broken", cause)
	}
	pe.mu.Unlock()
	es.mu.Lock()
	pe.globals = out.Globals
	es.mu.Unlock()
	out.Reset, out.ResetCause = fresh, cause
	es.mu.Lock()
	if _, live := es.owners[o.o.key]; !live {
		// The owner was released while we ran (or before): don't keep an
		// environment nobody can release.
		es.mu.Unlock()
		es.releaseKey(o.o.key, "owner released", "")
	} else {
		es.mu.Unlock()
	}
	out.Duration = time.Since(start)
	return out
}

// current reports whether pe is key's environment (not released since).
func (es *Environments) current(key ownerKey, pe *penv) bool {
	es.mu.Lock()
	defer es.mu.Unlock()
	cur, ok := es.lru.Peek(key)
	return es.closed || (ok && cur == pe)
}

// brokenCause is the reset cause of an environment a run left unusable.
func brokenCause(err *errs.Error) ResetCause {
	switch errs.CodeOf(err) {
	case errs.CodeTimeout:
		return ResetTimeout
	case errs.CodeMemoryLimit:
		return ResetMemory
	case errs.CodeStackOverflow:
		return ResetStackOverflow
	}
	return ResetBroken
}

// get returns the owner's environment, creating it when there is none;
// fresh reports a new one, and cause why the previous one was discarded.
func (es *Environments) get(ctx context.Context, o *owner, limits Limits) (pe *penv, fresh bool, cause ResetCause, _ *errs.Error) {
	es.mu.Lock()
	if es.closed {
		es.mu.Unlock()
		return nil, false, "", errs.Errorf(errs.CodeInternal, "environments are closed (the plugin was unloaded)")
	}
	if pe, ok := es.lru.Get(o.key); ok {
		es.mu.Unlock()
		return pe, false, "", nil
	}
	es.mu.Unlock()
	// Admission: a new environment reserves its whole budget for its first
	// run (Run sets it to what it retains afterwards).
	res, rerr := es.rt.gov.reserve(limits.MemoryBytes, true)
	if rerr != nil {
		return nil, false, "", rerr
	}
	opts := es.rt.envOptions(true, limits)
	opts.Released = res.close
	env, err := es.rt.eng.NewEnv(ctx, opts)
	if err != nil {
		res.close()
		return nil, false, "", envError(err)
	}
	pe = &penv{env: env, res: res, lastUsed: time.Now(), label: o.label}
	es.mu.Lock()
	if existing, ok := es.lru.Get(o.key); ok { // lost a race: use the winner's
		es.mu.Unlock()
		env.Close()
		return existing, false, "", nil
	}
	cause, o.reset = o.reset, ""
	es.reason, es.cause = "capacity", ResetEvicted
	es.lru.Add(o.key, pe)
	es.closeEvicted()
	return pe, true, cause, nil
}

// releaseKey removes and closes the environment of key, if any. Every
// release path ends here: scopes, Release, Reset, LRU capacity, idle expiry.
// cause is what the owner's next run is told ("" for nothing: the owner is
// gone).
func (es *Environments) releaseKey(key ownerKey, reason string, cause ResetCause) {
	es.mu.Lock()
	es.reason, es.cause = reason, cause
	es.lru.Remove(key) // calls onEvict
	es.closeEvicted()
}

// onEvict runs under es.mu, inside the LRU. Closing an environment may wait
// for its running program to stop, so it is queued and closed by the
// caller once the lock is released (closeEvicted). The owner, if it lives
// on, keeps the cause for its next run.
func (es *Environments) onEvict(key ownerKey, pe *penv) {
	es.log.Info("runtime: persistent environment released", slog.String("owner", pe.label), slog.String("reason", es.reason))
	if es.evictions == nil {
		es.evictions = map[string]int64{}
	}
	es.evictions[es.reason]++
	if o := es.owners[key]; o != nil && es.cause != "" {
		o.reset = es.cause
	}
	es.evicted = append(es.evicted, pe)
}

// closeEvicted unlocks es.mu and closes what the LRU evicted, waiting for
// each close, so that a release returns only when the environment is gone.
func (es *Environments) closeEvicted() {
	ev := es.evicted
	es.evicted = nil
	es.mu.Unlock()
	for _, pe := range ev {
		pe.env.Close() // aborts a run in progress; that run then sees an unusable env
	}
}

func (es *Environments) sweep() {
	defer es.wg.Done()
	period := es.opts.IdleTTL / 4
	if period < 10*time.Millisecond {
		period = 10 * time.Millisecond
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-es.stop:
			return
		case now := <-t.C:
			es.expire(now)
		}
	}
}

// oldestIdle finds the least recently used environment that is not
// running a program, for the governor; ok is false when there is none.
func (es *Environments) oldestIdle() (key ownerKey, lastUsed int64, ok bool) {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.closed {
		return key, 0, false
	}
	for _, k := range es.lru.Keys() { // oldest first
		pe, _ := es.lru.Peek(k)
		if pe.mu.TryLock() {
			used := pe.lastUsed.UnixNano()
			pe.mu.Unlock()
			return k, used, true
		}
	}
	return key, 0, false
}

// evictIdle releases key's environment for the governor, if it is still
// there and idle, and reports whether it did.
func (es *Environments) evictIdle(key ownerKey) bool {
	es.mu.Lock()
	pe, ok := es.lru.Peek(key)
	if !ok || !pe.mu.TryLock() {
		es.mu.Unlock()
		return false
	}
	// Idle, and no run can start on it: Run locks pe.mu after get.
	es.reason, es.cause = "memory budget", ResetMemoryBudget
	es.lru.Remove(key)
	pe.mu.Unlock()
	es.closeEvicted()
	return true
}

// expire releases environments idle for longer than IdleTTL.
func (es *Environments) expire(now time.Time) {
	es.mu.Lock()
	var idle []ownerKey
	for _, k := range es.lru.Keys() {
		pe, _ := es.lru.Peek(k)
		if pe.mu.TryLock() { // a running environment is not idle
			if now.Sub(pe.lastUsed) > es.opts.IdleTTL {
				idle = append(idle, k)
			}
			pe.mu.Unlock()
		}
	}
	es.mu.Unlock()
	for _, k := range idle {
		es.releaseKey(k, "idle", ResetIdle)
	}
}

// close releases everything; it is the plugin scope's effect.
func (es *Environments) close() {
	es.mu.Lock()
	if es.closed {
		es.mu.Unlock()
		return
	}
	es.closed = true
	es.rt.gov.unregister(es)
	owners := make([]*owner, 0, len(es.owners))
	for _, o := range es.owners {
		owners = append(owners, o)
	}
	es.mu.Unlock()
	sort.Slice(owners, func(i, j int) bool { return owners[i].label < owners[j].label })
	for _, o := range owners {
		o.release()
	}
	es.mu.Lock()
	es.reason, es.cause = "plugin unloaded", ""
	es.lru.Purge()
	es.closeEvicted()
	close(es.stop)
	es.wg.Wait()
}

func (o *owner) String() string { return fmt.Sprintf("owner(%s)", o.label) }
