package broker

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node beating in a newer wire version is not asked for every node's leases or aborts (its
// answer would be refused), and the answer says once which nodes were left out and why. Before,
// each such call asked it and carried its refused answer as a failure of its own. Once it beats
// in this version again, it is asked.
func TestEachNodeSkipsNodesOfANewerWireVersion(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})
	nc := s.JS.Conn()
	var asked atomic.Int32 // requests n-new got
	serve := func(node string, answer func(m *nats.Msg)) {
		t.Helper()
		sub, err := nc.Subscribe(fmt.Sprintf(NodeGroupT, node)+".*", answer)
		require.NoError(t, err)
		t.Cleanup(func() { _ = sub.Unsubscribe() })
	}
	serve("n-old", func(m *nats.Msg) {
		_ = m.Respond(fmt.Appendf(nil, `{"v":%d,"leases":[{"serial":"s-old","node":"n-old"}],"aborted":["t-old"]}`, WireVersion))
	})
	serve("n-new", func(m *nats.Msg) {
		asked.Add(1)
		_ = m.Respond([]byte(`{"v":2,"leases":[{"serial":"s-new","node":"n-new"}],"aborted":["t-new"]}`))
	})
	require.NoError(t, nc.Flush())
	beat := func(node, data string) {
		t.Helper()
		require.NoError(t, nc.Publish(fmt.Sprintf(HeartbeatT, node), []byte(data)))
		require.NoError(t, nc.Flush())
	}
	beat("n-old", fmt.Sprintf(`{"v":%d,"node":"n-old","boot":"b1","devices":1,"sent":"2026-01-01T00:00:00Z"}`, WireVersion))
	beat("n-new", `{"v":2,"node":"n-new","boot":"b1","devices":{"android":1},"sent":1767225600}`)
	require.Eventually(t, func() bool { return len(c.Nodes()) == 2 }, waitLong, 5*time.Millisecond, "both nodes alive")

	leases, err := c.Leases(call(t))
	require.Len(t, leases, 1)
	assert.Equal(t, "s-old", leases[0].Serial)
	var partial *PartialError
	require.ErrorAs(t, err, &partial, "n-new's leases left out silently")
	assert.Empty(t, partial.Missing)
	require.NotNil(t, partial.Newer)
	assert.Equal(t, map[string]int{"n-new": 2}, partial.Newer.Nodes)
	msg := err.Error()
	assert.Contains(t, msg, fmt.Sprintf("node n-new (wire version 2) not asked: newer than this gateway's wire version %d", WireVersion))
	assert.Contains(t, msg, "upgrade the gateway")
	assert.Equal(t, 1, strings.Count(msg, "n-new"), "said once: %s", msg)

	ab, err := c.Abort(call(t), AbortRequest{V: WireVersion})
	assert.Equal(t, []string{"t-old"}, ab.Aborted)
	var newer *NewerNodesError
	require.ErrorAs(t, err, &newer)
	assert.Contains(t, newer.Nodes, "n-new")
	assert.False(t, errors.Is(err, ErrNewerWire), "n-new was asked: %v", err)
	assert.Zero(t, asked.Load(), "a node of a newer wire version was asked")

	// Beating in this version again (rolled back), it is asked.
	beat("n-new", fmt.Sprintf(`{"v":%d,"node":"n-new","boot":"b2","devices":1,"sent":"2026-01-01T00:00:00Z"}`, WireVersion))
	require.Eventually(t, func() bool { return c.newerBeats.of("n-new") == 0 }, waitLong, 5*time.Millisecond, "n-new's v1 beat read")
	_, err = c.Leases(call(t))
	assert.NotZero(t, asked.Load(), "n-new not asked after it beat in wire version %d", WireVersion)
	require.ErrorAs(t, err, &partial)
	assert.Contains(t, partial.Missing, "n-new", "its v2 answer refused as before")
	assert.True(t, slices.Contains(c.Nodes(), "n-new"))
}
