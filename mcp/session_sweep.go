package mcp

import "time"

// sweepIdle forgets idle sessions when no request comes to do it (open sweeps too): an idle
// gateway kept every expired session, and mcp-go's state of it (about 12 KB each), until its
// next request. It is started by the first session to go live and returns once none is left,
// so a gateway whose server stopped (corral's Shutdown, a test's Close: neither reaches the
// gateway, which has no Close of its own) lets its last sessions go within about SessionTTL,
// and this goroutine with them; a gateway that never serves a session never starts one.
func (s *sessions) sweepIdle() {
	t := time.NewTicker(s.sweepEvery())
	defer t.Stop()
	for range t.C {
		s.mu.Lock()
		idle := s.expireLocked(s.now())
		done := len(s.live) == 0
		if done {
			s.sweeping = false // the next session to go live starts another
		}
		s.mu.Unlock()
		s.ended(idle, "idle")
		if done {
			return
		}
	}
}
