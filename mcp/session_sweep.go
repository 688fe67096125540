package mcp

import "time"

// sweepIdle forgets idle sessions when no request comes to do it (open sweeps too): an idle
// gateway kept every expired session, and mcp-go's state of it (about 12 KB each), until its
// next request. It is started by the first session to go live and returns once none is left,
// or once the gateway closes (Close; its HTTPServer's Shutdown calls it), closing done: a
// stopped gateway in a long-lived process (tests, an embedding program) left it running until
// its last sessions expired. A gateway that never serves a session never starts one.
func (s *sessions) sweepIdle(done chan struct{}) {
	defer close(done)
	t := time.NewTicker(s.sweepEvery())
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-s.stop:
			s.mu.Lock()
			s.sweeper = nil
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		idle := s.expireLocked(s.now())
		last := len(s.live) == 0
		if last {
			s.sweeper = nil // the next session to go live starts another
		}
		s.mu.Unlock()
		s.ended(idle, "idle")
		if last {
			return
		}
	}
}

// close ends sweepIdle for good; requests still in flight sweep as they come (open).
func (s *sessions) close() { s.closing.Do(func() { close(s.stop) }) }
