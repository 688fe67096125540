package mcp

// LegacyWatchDone is closed once g's watch of the sessions' entries under their id alone
// (legacy_sessions.go) has stopped; nil when none was started, and none starts after.
func LegacyWatchDone(g *Gateway) <-chan struct{} {
	k, ok := g.farm.(*keyedSessions)
	if !ok {
		k = g.farm.(*quotaFarm).Farm.(*keyedSessions)
	}
	k.legacyStart.Do(func() {}) // waits for a start under way; after it, none starts
	if k.legacyKeys == nil {
		return nil
	}
	return k.legacyKeys.Done()
}
