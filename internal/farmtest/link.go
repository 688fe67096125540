package farmtest

import (
	"net"
	"sync"
	"testing"
)

// Link is a TCP link between two servers on loopback that a test can cut and heal, as a
// site's uplink fails: cut, every connection through it drops and new ones are refused;
// healed, it accepts again on the same address.
type Link struct {
	t      testing.TB
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
	gate  pauseGate // Pause, Resume (link_pause.go)
}

// StartLink listens on a free loopback port and forwards what arrives to target; it closes
// when the test ends.
func StartLink(t testing.TB, target string) *Link {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &Link{t: t, target: target, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	l.serve(ln)
	t.Cleanup(func() { l.Cut(); l.Resume(); l.wg.Wait() }) // after the cut, what a pause held goes nowhere
	return l
}

// Addr is the link's address: connect there to reach the target.
func (l *Link) Addr() string { return l.addr }

// Cut drops every connection through the link and refuses new ones until Heal.
func (l *Link) Cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln != nil {
		_ = l.ln.Close()
		l.ln = nil
	}
	for c := range l.conns {
		_ = c.Close()
	}
}

// Heal accepts connections again.
func (l *Link) Heal() {
	l.t.Helper()
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		l.t.Fatalf("heal the link on %s: %v", l.addr, err)
	}
	l.serve(ln)
}

func (l *Link) serve(ln net.Listener) {
	l.mu.Lock()
	l.ln = ln
	l.mu.Unlock()
	l.wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", l.target)
			if err != nil {
				_ = in.Close()
				continue
			}
			if !l.track(ln, in, out) {
				return
			}
			l.wg.Go(func() { l.pipe(in, out) })
			l.wg.Go(func() { l.pipe(out, in) })
		}
	})
}

// track remembers a connection's two ends, unless the link was cut meanwhile.
func (l *Link) track(ln net.Listener, in, out net.Conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln != ln {
		_ = in.Close()
		_ = out.Close()
		return false
	}
	l.conns[in], l.conns[out] = struct{}{}, struct{}{}
	return true
}

func (l *Link) pipe(from, to net.Conn) {
	l.copy(to, from)
	_ = from.Close()
	_ = to.Close()
	l.mu.Lock()
	delete(l.conns, from)
	delete(l.conns, to)
	l.mu.Unlock()
}
