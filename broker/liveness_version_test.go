package broker

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// A node that speaks a newer wire version (upgraded before the gateways) is alive while it
// beats, also when its heartbeat's other fields no longer decode as this version's; its down
// event stops it, not a loss; and the gateway says once to upgrade it. Its beats were dropped
// when they did not decode: the node was declared lost, and the loss event makes a node
// revoke its leases. Nothing said why.
func TestNodeOfANewerWireVersionIsAliveWhileItBeats(t *testing.T) {
	s := openStores(t)
	var logs logtest.Recorder
	lostAfter := time.Second
	c := startClient(t, s, ClientOptions{LostAfter: lostAfter, Log: slog.New(&logs)})
	nc := s.JS.Conn()
	beat := func(data string) {
		t.Helper()
		require.NoError(t, nc.Publish(Heartbeats, []byte(data)))
		require.NoError(t, nc.Flush())
	}
	// Beats as a node does, often, for as long as the client could declare it lost three times.
	beatFor := func(d time.Duration, data string) {
		t.Helper()
		for end := time.Now().Add(d); time.Now().Before(end); {
			beat(data)
			select {
			case <-t.Context().Done():
				return
			case <-time.After(lostAfter / 8):
			}
		}
	}

	beat(`{"v":1,"node":"n-up","boot":"b1","devices":1,"sent":"2026-01-01T00:00:00Z"}`)
	require.Eventually(t, func() bool { return slices.Contains(c.Nodes(), "n-up") }, waitLong, 5*time.Millisecond, "n-up alive")
	lost := c.live.Lost("n-up")

	// Upgraded: "devices" became an object, "sent" a number. Only node and boot are read.
	beatFor(3*lostAfter, `{"v":2,"node":"n-up","boot":"b2","devices":{"android":1},"sent":1767225600}`)
	assert.NoError(t, lost.Err(), "n-up, beating in wire version 2, was declared lost")
	assert.Contains(t, c.Nodes(), "n-up")
	// A beat whose node cannot be read is no node's.
	beat(`{"v":2,"node":{"name":"n-odd"},"boot":"b1"}`)
	beat(`{"v":2,"node":{"name":"n-odd"},"boot":"b1"}`)

	// Its down event stops it, not a loss; so does that of a node heard from in wire version 1
	// only until then, which says to upgrade as well.
	beat(`{"v":1,"node":"n-two","boot":"b1","devices":1,"sent":"2026-01-01T00:00:00Z"}`)
	require.Eventually(t, func() bool { return slices.Contains(c.Nodes(), "n-two") }, waitLong, 5*time.Millisecond, "n-two alive")
	for _, node := range []string{"n-up", "n-two"} {
		require.NoError(t, nc.Publish(fmt.Sprintf(EventNodeT, node, "down"), fmt.Appendf(nil, `{"v":2,"kind":"node","node":%q,"what":"down","at":1767225600}`, node)))
		require.Eventually(t, func() bool { _, ok := c.live.stoppedAt(node); return ok }, waitLong, 5*time.Millisecond, "%s stopped", node)
	}

	var lines []string
	for _, l := range newerLines(&logs) {
		if strings.Contains(l, "newer wire version") {
			lines = append(lines, l)
		}
	}
	speaks := "node speaks a newer wire version: kept alive by its heartbeats, but its devices are not listed and its answers refused: upgrade the gateway"
	assert.ElementsMatch(t, []string{speaks, speaks, // n-up's, n-two's
		"a heartbeat of a newer wire version names no node this Corral can read; ignored: upgrade the gateway",
	}, lines, "one line per node and version")
	for _, r := range logs.Records() {
		assert.NotEqual(t, "node lost", r.Message, "a node of wire version 2 declared lost")
	}
}
