package broker

import "testing"

// StallLink is stallLink (reap_stall_test.go) for the tests of package broker_test: a TCP
// link to a NATS server that a test stalls as a hung server process does.
type StallLink struct{ l *stallLink }

// StartStallLink forwards connections made to its Addr to target (host:port).
func StartStallLink(t *testing.T, target string) StallLink {
	t.Helper()
	return StallLink{startStallLink(t, target)}
}

// URL is where a client connects through the link.
func (s StallLink) URL() string { return "nats://" + s.l.addr }

// Stall holds every byte sent either way, without closing anything; Resume lets them through.
func (s StallLink) Stall()  { s.l.stall() }
func (s StallLink) Resume() { s.l.resume() }
