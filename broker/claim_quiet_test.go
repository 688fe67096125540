package broker

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fillClaims makes the claims bucket refuse (full) or take writes again: a full bucket
// refuses a new value for a key it holds, as a store on a full disk takes no writes.
func fillClaims(t *testing.T, js jetstream.JetStream, full bool) {
	t.Helper()
	s, err := js.Stream(t.Context(), "KV_"+NodeBucket)
	require.NoError(t, err)
	cfg := s.CachedInfo().Config
	cfg.Discard, cfg.DiscardNewPerSubject = jetstream.DiscardNew, full
	_, err = js.UpdateStream(t.Context(), cfg)
	require.NoError(t, err)
}

// A claim whose refreshes keep failing (NATS takes no writes) says so once, not every
// heartbeat, then reminds at most every remindEvery, and says once when it is refreshed again.
func TestClaimRefreshFailuresAreLoggedOnceAndRecovery(t *testing.T) {
	nc, _ := openClaims(t, time.Minute)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	h := holdClaim(t, nc, "n1", "boot-a")
	count := func(s string) int { return strings.Count(h.log.String(), s) }

	fillClaims(t, js, true)
	for range 11 {
		h.refresh(t) // keepAlive has done with a failure when it takes the next tick
	}
	assert.Equal(t, 1, count("node id claim not refreshed"), "ten failed refreshes:\n%s", h.log)
	assert.Contains(t, h.log.String(), "check its data disk")
	assert.Zero(t, count("still not refreshed"), "a reminder within a minute:\n%s", h.log)
	h.mu.Lock()
	h.remindEvery = time.Nanosecond
	h.mu.Unlock()
	h.refresh(t)
	h.refresh(t)
	assert.GreaterOrEqual(t, count("node id claim still not refreshed"), 1, "no reminder once remindEvery passed:\n%s", h.log)

	fillClaims(t, js, false)
	require.Eventually(t, func() bool {
		h.refresh(t)
		return count("node id claim refreshed again") == 1
	}, 10*time.Second, 10*time.Millisecond, "no line says the claim is refreshed again:\n%s", h.log)
	h.refresh(t)
	h.refresh(t)
	assert.Equal(t, 1, count("node id claim refreshed again"), "recovery logged more than once:\n%s", h.log)
	assert.Equal(t, 1, count("node id claim not refreshed"), h.log.String())
}
