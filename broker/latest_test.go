package broker

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A caller without a session runs a task through gateway A, then one through gateway B: A's
// latest task is B's (docs/tools.md: every gateway finds the latest task), not the older one
// A recorded itself (QA: A answered from its memory). A task recorded through A again is the
// latest at once, before A writes it to the KV, and after.
func TestLatestTaskIsTheNewestAcrossGateways(t *testing.T) {
	s := openStores(t)
	nc, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	s2, err := EnsureStores(t.Context(), nc, StoreOptions{})
	require.NoError(t, err)
	a := startClient(t, s, ClientOptions{})
	b := startClient(t, s2, ClientOptions{})
	const who = "anonymous (corral-cli)"
	stored := func(id string) {
		t.Helper()
		require.Eventually(t, func() bool {
			e, err := s.Sessions.Get(t.Context(), latestKey(who))
			return err == nil && string(e.Value()) == id
		}, waitLong, 5*time.Millisecond, "%s never written to the KV", id)
	}
	latest := func(c *Client) string {
		t.Helper()
		id, ok := c.LatestTask(call(t), who)
		require.True(t, ok, "no latest task")
		return id
	}

	require.NoError(t, a.SetLatestTask(t.Context(), who, "t_a"))
	stored("t_a")
	require.NoError(t, b.SetLatestTask(t.Context(), who, "t_b"))
	stored("t_b")
	assert.Equal(t, "t_b", latest(a), "gateway A answers its own older task")
	assert.Equal(t, "t_b", latest(b))

	require.NoError(t, a.SetLatestTask(t.Context(), who, "t_c"))
	assert.Equal(t, "t_c", latest(a), "A's newest, not yet in the KV, lost to B's older one")
	stored("t_c")
	assert.Equal(t, "t_c", latest(a))
	assert.Equal(t, "t_c", latest(b))
}
