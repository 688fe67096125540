package wdasim

import "context"

// lock answers POST /wda/lock: the screen goes dark.
func (s *Server) lock(c *call) (any, error) {
	s.mu.Lock()
	s.screenOff = true
	s.mu.Unlock()
	return nil, nil
}

// unlock answers POST /wda/unlock: the screen wakes. A phone on its PIN lock screen stays there,
// and, as WebDriverAgent times out waiting for an iPhone with a passcode, the answer is an error.
func (s *Server) unlock(c *call) (any, error) {
	s.wake()
	locked, err := s.phoneLocked(c.ctx)
	if err != nil {
		return nil, err
	}
	if locked {
		return nil, errUnknown("Timed out while waiting until the screen gets unlocked: the phone shows its passcode screen; type the passcode with /wda/keys, then \\n")
	}
	return nil, nil
}

// locked answers GET /wda/locked: the screen is dark, or shows the lock screen.
func (s *Server) locked(c *call) (any, error) {
	if s.isScreenOff() {
		return true, nil
	}
	return s.phoneLocked(c.ctx)
}

// homescreen answers POST /wda/homescreen: the home button, which must reach the home screen.
func (s *Server) homescreen(c *call) (any, error) {
	s.wake()
	if err := s.phone.PressKey(c.ctx, "HOME"); err != nil {
		return nil, err
	}
	locked, err := s.phoneLocked(c.ctx)
	if err != nil {
		return nil, err
	}
	if locked {
		return nil, errUnknown("Timed out while waiting until the home screen is visible: the phone is locked; unlock it first")
	}
	return nil, nil
}

func (s *Server) wake() {
	s.mu.Lock()
	s.screenOff = false
	s.mu.Unlock()
}

// phoneLocked reports whether the phone shows its own PIN lock screen.
func (s *Server) phoneLocked(ctx context.Context) (bool, error) {
	st, err := s.phone.Status(ctx)
	if err != nil {
		return false, err
	}
	return st["locked"] == "true", nil
}
