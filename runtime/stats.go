package runtime

// Warm reports how many environments wait warm in the engine's pool of
// per-call environments; ok is false when the engine does not say.
func (rt *Runtime) Warm() (warm int, ok bool) {
	w, ok := rt.eng.(interface{ Warm() int })
	if !ok {
		return 0, false
	}
	return w.Warm(), true
}

// Evictions reports how many persistent environments have been released,
// by cause ("capacity", "idle", "memory budget", "reset", "broken",
// "released", "owner released", "plugin unloaded"), since es was created.
func (es *Environments) Evictions() map[string]int64 {
	es.mu.Lock()
	defer es.mu.Unlock()
	out := make(map[string]int64, len(es.evictions))
	for k, v := range es.evictions {
		out[k] = v
	}
	return out
}
