package nodes

import "github.com/corral-farm/corral/actors"

// The leases a killed run left unended are revoked as the node restarts (leases_unended.go),
// before its scheduler has their devices. The mirror keeps them (actors.PastLeases) until a
// device's refusal asks: the holder who passes such a lease hears that the node was killed
// while it was held, not that the node never knew it.

var _ actors.PastLeases = (*natsMirror)(nil)

// pastLease keeps l, a lease of serial that ended before this run.
func (m *natsMirror) pastLease(serial string, l actors.PastLease) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.past == nil {
		m.past = map[string][]actors.PastLease{}
	}
	m.past[serial] = append(m.past[serial], l)
}

// TakePastLeases returns serial's leases that ended before this run, once.
func (m *natsMirror) TakePastLeases(serial string) []actors.PastLease {
	m.mu.Lock()
	defer m.mu.Unlock()
	past := m.past[serial]
	delete(m.past, serial)
	return past
}
