package farmtest

import (
	"io"
	"sync"
)

// A link can also go silent, as a network that drops the packets, or a proxy stopped
// (SIGSTOP): nothing is closed, nothing passes. Pause stops forwarding on every connection
// through the link, in both directions, until Resume; the bytes already read wait, and TCP's
// windows fill behind them.

// pauseGate holds a link's forwarding while it is paused.
type pauseGate struct {
	mu     sync.Mutex
	paused bool
	resume chan struct{} // closed at Resume
}

// Pause stops forwarding through the link, closing nothing, until Resume.
func (l *Link) Pause() {
	l.gate.mu.Lock()
	defer l.gate.mu.Unlock()
	if !l.gate.paused {
		l.gate.paused, l.gate.resume = true, make(chan struct{})
	}
}

// Resume forwards again what the link held, and what comes.
func (l *Link) Resume() {
	l.gate.mu.Lock()
	defer l.gate.mu.Unlock()
	if l.gate.paused {
		l.gate.paused = false
		close(l.gate.resume)
	}
}

// wait returns once the link is not paused.
func (g *pauseGate) wait() {
	g.mu.Lock()
	paused, resume := g.paused, g.resume
	g.mu.Unlock()
	if paused {
		<-resume
	}
}

// copy forwards from to to as io.Copy does, holding what it read while the link is paused.
func (l *Link) copy(to io.Writer, from io.Reader) {
	buf := make([]byte, 32*1024)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			l.gate.wait()
			if _, werr := to.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
