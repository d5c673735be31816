package front

// Draining reports whether Drain has begun: the server takes no new
// sessions or calls (a readiness check answers "not ready").
func (s *Server) Draining() bool { return s.draining.Load() }
