package gojaengine

// Warm reports how many runtimes wait in the pool, ready for NewEnv (the
// runtime's readiness and metrics read it).
func (e *gojaEngine) Warm() int { return len(e.pool) }
