package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A group whose members' leases all expired on their nodes is ended by the gateway that sees
// the last end: it no longer lists, and its entry lives a minute more rather than until the
// members' maximum (hours). Meanwhile release_device with its handle still says how each ended.
func TestGroupWhoseMembersExpiredIsEnded(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1})
	alice := f.Client("alice")
	grp := acquireGroup(t, alice, map[string]any{"count": 2, "platform": "android", "ttl_seconds": 1})
	gw := f.Gateway().Client

	farmtest.Eventually(t, 30*time.Second, func() bool {
		g, err := gw.LeaseGroup(t.Context(), grp.Handle)
		return err == nil && !g.Ended.IsZero()
	}, "group %s ended once its members' leases expired", grp.ID)
	g, err := gw.LeaseGroup(t.Context(), grp.Handle)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), g.Ended, time.Minute)
	listed, err := gw.LeaseGroups(t.Context())
	require.NoError(t, err)
	assert.Empty(t, listed, "an ended group is listed")

	text := farmtest.Text(farmtest.MustCall(t, alice, "release_device", map[string]any{"lease": grp.Handle}))
	assert.Contains(t, text, "Already ended: ")
	assert.Contains(t, text, "expired")
}
