package runtime

import (
	"fmt"
	"sync"

	"github.com/codemode/codemode/tools/errs"
)

// Governor bounds the memory of a whole process: every run in progress and
// every persistent environment kept, across the runtimes that share it
// (see docs/engines.md#the-memory-governor).
//
// Each run reserves its memory budget (Limits.MemoryBytes) when it is
// admitted and gives it back when its engine lets go of the environment —
// for a run abandoned in a built-in, only when the built-in returns. A
// persistent environment keeps what it retains between runs, as its engine
// measures it (wazero: the wasm linear memory, exact; goja: an estimate,
// see gojaengine's guard), and tops up to the budget for each run. When a
// reservation does not fit, the least recently used idle persistent
// environment of any [Environments] on the governor is released (its
// owner's next run is told why, [ResetMemoryBudget]), until it fits; when
// nothing idle is left, the run is refused with OVERLOADED, before
// anything runs. Nothing here measures the process: the governor adds up
// budgets and measured retention, so the engines' own caps are what make
// the figures true (exact on wazero, a watchdog on goja).
//
// A nil *Governor bounds nothing. Methods are safe for concurrent use.
type Governor struct {
	budget int64

	mu    sync.Mutex
	used  int64
	runs  int // open run reservations
	envs  int // open environment reservations
	pools map[*Environments]struct{}
}

// NewGovernor returns a governor with the given total budget in bytes. If
// zero, [DefaultTotalMemory]; if negative, nil: no bound.
func NewGovernor(budget int64) *Governor {
	if budget < 0 {
		return nil
	}
	if budget == 0 {
		budget = DefaultTotalMemory()
	}
	return &Governor{budget: budget, pools: map[*Environments]struct{}{}}
}

// Budget reports the total budget in bytes (0 for a nil Governor: no
// bound).
func (g *Governor) Budget() int64 {
	if g == nil {
		return 0
	}
	return g.budget
}

// InUse reports the bytes reserved now, by runs in progress and kept
// environments.
func (g *Governor) InUse() int64 {
	if g == nil {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.used
}

// reservation is one holder's share of the budget: a run's, or a
// persistent environment's. Its size changes under g.mu; once closed it
// holds nothing and ignores changes.
type reservation struct {
	g      *Governor
	env    bool // a persistent environment's (for messages)
	n      int64
	closed bool
}

// reserve admits a new holder of n bytes, evicting idle environments if it
// must; the error is OVERLOADED. A nil Governor admits everything (and
// returns a nil reservation, whose methods do nothing).
func (g *Governor) reserve(n int64, env bool) (*reservation, *errs.Error) {
	if g == nil {
		return nil, nil
	}
	r := &reservation{g: g, env: env}
	g.mu.Lock()
	if env {
		g.envs++
	} else {
		g.runs++
	}
	g.mu.Unlock()
	if err := r.grow(n); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

// grow brings r to at least n bytes, evicting idle environments if it must,
// or fails with OVERLOADED (r keeps its size). It never shrinks r.
func (r *reservation) grow(n int64) *errs.Error {
	if r == nil {
		return nil
	}
	g := r.g
	for {
		g.mu.Lock()
		need := n - r.n
		if r.closed || need <= 0 || g.used+need <= g.budget {
			if !r.closed && need > 0 {
				g.used += need
				r.n = n
			}
			g.mu.Unlock()
			return nil
		}
		used := g.used
		g.mu.Unlock()
		if !g.evictOne() {
			return r.overloaded(need, used)
		}
	}
}

// set makes r hold n bytes, over the budget if it must: what an
// environment retains is measured after the fact and cannot be refused.
func (r *reservation) set(n int64) {
	if r == nil {
		return
	}
	r.g.mu.Lock()
	defer r.g.mu.Unlock()
	if !r.closed {
		r.g.used += n - r.n
		r.n = n
	}
}

// close gives r's bytes back. Idempotent.
func (r *reservation) close() {
	if r == nil {
		return
	}
	g := r.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	g.used -= r.n
	r.n = 0
	if r.env {
		g.envs--
	} else {
		g.runs--
	}
}

// overloaded is the refusal of r's growth by need bytes (the requester is
// not counted among the holders).
func (r *reservation) overloaded(need, used int64) *errs.Error {
	g := r.g
	g.mu.Lock()
	runs, envs := g.runs, g.envs
	g.mu.Unlock()
	if r.env {
		envs--
	} else {
		runs--
	}
	return &errs.Error{
		Code: errs.CodeOverloaded,
		Message: fmt.Sprintf("the server is at its memory budget: %s more were needed, and %s of %s are held by %d running programs and %d kept environments, none of them idle; retry later",
			formatBytes(need), formatBytes(used), formatBytes(g.budget), runs, envs),
		Info: map[string]any{"neededBytes": need, "inUseBytes": used, "budgetBytes": g.budget},
	}
}

// register puts es's idle environments at the governor's disposal.
func (g *Governor) register(es *Environments) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.pools[es] = struct{}{}
	g.mu.Unlock()
}

func (g *Governor) unregister(es *Environments) {
	if g == nil {
		return
	}
	g.mu.Lock()
	delete(g.pools, es)
	g.mu.Unlock()
}

// evictOne releases the least recently used idle environment of all the
// pools, and reports whether it released one.
func (g *Governor) evictOne() bool {
	g.mu.Lock()
	pools := make([]*Environments, 0, len(g.pools))
	for es := range g.pools {
		pools = append(pools, es)
	}
	g.mu.Unlock()
	for {
		var best *Environments
		var bestKey ownerKey
		var bestUsed int64
		for _, es := range pools {
			if k, used, ok := es.oldestIdle(); ok && (best == nil || used < bestUsed) {
				best, bestKey, bestUsed = es, k, used
			}
		}
		if best == nil {
			return false
		}
		if best.evictIdle(bestKey) {
			return true
		}
		// It started a run meanwhile: look again.
	}
}

// formatBytes writes n in the largest binary unit that keeps it readable.
func formatBytes(n int64) string {
	switch {
	case n >= 10<<30:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 10<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
