package nodes_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// Found after c9f14e7: a node still connected when a gateway declares it lost (a partition
// between that gateway and the server the node was not on) sees the gateway's offline entry at
// once, shows its device again and records it online, which may be before the gateway's
// offline event, written after the entry, lands: the device's events then end "online,
// offline" while it is online. The node records the loss's offline event before it records the
// device online, and the gateway's, the same event under the same id, landing after is not
// kept: offline, then online, once each.
func TestLossEventsReadOfflineThenOnlineWhenTheGatewaysEventIsLate(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	r := newRestartRig(t, false) // nobody declares the node lost but the test
	r.startNode(node, serial)
	shown := r.waitEntry(node, serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	var before []string
	farmtest.Eventually(t, 15*time.Second, func() bool {
		before = whats(deviceEvents(t, r.stores, node, serial))
		return len(before) > 0 && before[len(before)-1] == broker.StateOnline
	}, "the device recorded online")

	// A reaping gateway's entry for the loss; its event held back.
	lost := shown
	lost.State, lost.Reason, lost.Holder, lost.Updated = broker.StateOffline, "node "+node+" lost: no heartbeat for 2.5s", "", time.Now()
	b, err := json.Marshal(lost)
	require.NoError(t, err)
	_, err = r.stores.Registry.Put(r.ctx, broker.RegistryKey(node, serial), b)
	require.NoError(t, err)

	r.waitEntry(node, serial, "shown again", func(d broker.DeviceEntry) bool {
		return d.State == broker.StateOnline && d.Epoch > shown.Epoch
	})
	var got []string
	farmtest.Eventually(t, 15*time.Second, func() bool {
		got = whats(deviceEvents(t, r.stores, node, serial))
		return len(got) > len(before) && got[len(got)-1] == broker.StateOnline
	}, "the device recorded online again")

	// The gateway's event lands now, as the reaper writes it (broker/reap.go).
	ev, id := broker.LostDeviceEvent(lost)
	data, err := json.Marshal(ev)
	require.NoError(t, err)
	ack, err := r.stores.JS.PublishMsg(r.ctx, &nats.Msg{Subject: fmt.Sprintf(broker.EventDevT, node, broker.Token(serial), broker.StateOffline),
		Data: data}, jetstream.WithMsgID(id))
	require.NoError(t, err)

	got = whats(deviceEvents(t, r.stores, node, serial))
	require.Equal(t, append(before, broker.StateOffline, broker.StateOnline), got, "the device's events")
	assert.True(t, ack.Duplicate, "the gateway's offline event was kept beside the node's")
	recorded := deviceEvents(t, r.stores, node, serial)[len(before)]
	assert.True(t, ev.At.Equal(recorded.At), "the node's offline event at %s, the gateway's at %s", recorded.At, ev.At)
	recorded.At = ev.At
	assert.Equal(t, ev, recorded, "the node's offline event is not the gateway's")
}
