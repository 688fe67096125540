package mcp

import (
	"context"

	"github.com/corral-farm/corral/broker"
)

// A miss under a principal's key reads the session's entry under its id alone too, for
// legacyKeys after the start (sessions_per_principal.go): that second KV read cost every call
// without a selection (a call with serial and no lease) a NATS round trip and some 45
// allocations, though such entries are usually gone. The gateway follows them from a watch of
// the bucket's keys of Corral before (broker.LegacySessions), started by the first such miss
// and stopped with the gateway or at the window's end, and reads one only when the watch saw
// it or cannot vouch that it is absent (not caught up yet, the link came back since).

// legacyFollower is a farm that follows the keys of Corral before principal keys
// (broker.Client).
type legacyFollower interface {
	FollowLegacySessions(ctx context.Context) *broker.LegacySessions
}

// legacyRead says whether a miss under key reads id alone too: within the window, unless the
// watch vouches that it has no entry.
func (k *keyedSessions) legacyRead(key, id string) bool {
	if !k.legacy(key, id) {
		return false
	}
	k.legacyStart.Do(k.followLegacy)
	return k.legacyKeys == nil || !k.legacyKeys.Absent(id)
}

// followLegacy starts the watch, to stop with the gateway (Close) or at the window's end.
func (k *keyedSessions) followLegacy() {
	f, ok := farmAs[legacyFollower](k.Farm)
	if !ok || k.g.sessions == nil {
		return
	}
	ctx, cancel := context.WithDeadline(context.Background(), k.legacyUntil)
	k.legacyKeys = f.FollowLegacySessions(ctx)
	go func() {
		defer cancel()
		select {
		case <-k.g.sessions.stop:
		case <-ctx.Done():
		}
	}()
}
