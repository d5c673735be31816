package wazeroengine

// Warm reports how many instances wait in the pool, ready for NewEnv (the
// runtime's readiness and metrics read it).
func (e *Engine) Warm() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.idle)
}
