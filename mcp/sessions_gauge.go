package mcp

// countSessions shows a gateway's live protocol sessions in m: the cap, every principal at 0
// (so a dashboard has a series before the first session), and returns what sessions call
// as a principal's count changes. The principal label takes only the policy's names, or
// anonymous without a policy (everyone, sharing one cap): a session's principal is the one
// its token named, never text a client sends.
func (m *Metrics) countSessions(pol *Policy, capped int) func(principal string, n int) {
	m.sessionCap.Set(float64(capped))
	names := []string{anonymous.Name}
	if pol != nil {
		names = pol.Principals()
	}
	for _, n := range names {
		m.sessions.WithLabelValues(n).Set(0)
		m.sessionsEvicted.WithLabelValues(n)
	}
	return func(principal string, n int) { m.sessions.WithLabelValues(principal).Set(float64(n)) }
}
