package camera

// Downer is a Source that knows, without waiting for a frame, whether its camera is down now:
// a capture loop that lost its stream or device. A rig shows it in its health (a rig that
// cannot see fails every look).
type Downer interface {
	// Down is why the camera sends no frames now (wrapping ErrDown), nil while it streams.
	Down() error
}

var (
	_ Downer = (*MJPEG)(nil)
)

// Down is why the stream sends no frames now, nil while it streams (Downer).
func (m *MJPEG) Down() error { return m.frames.downNow() }

// downNow is why the camera is down, nil while it streams or once closed (closing is no
// fault of the camera's).
func (l *latest[T]) downNow() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	return l.down
}
