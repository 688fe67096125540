package nodes

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
)

// After an offline entry of a loss, the mirror records the loss's offline event (the
// gateway's, under its id) before what it records next of the device, whether the device shown
// again or a state the scheduler tells; the offline event goes out alone, so that a failed try,
// written again, is still first. An entry older than lostEventFresh is left to the gateway's
// event, long since recorded: the node's would come after the deduplication window, twice.
func TestMirrorRecordsTheLossBeforeTheDeviceAfterIt(t *testing.T) {
	ctx, stores, log := mirrorStores(t)
	m := newNATSMirror(stores, "n1", log)
	lostEntry := func(serial string, updated time.Time) broker.DeviceEntry {
		return broker.DeviceEntry{V: broker.WireVersion, Serial: serial, Node: "n1", State: broker.StateOffline,
			Reason: "node n1 lost: no heartbeat for 2.5s", Epoch: 3, Updated: updated}
	}
	online := func(serial string) broker.DeviceEntry {
		return broker.DeviceEntry{V: broker.WireVersion, Serial: serial, Node: "n1", State: broker.StateOnline, Epoch: 4}
	}
	// stored is the device events of serial in the stream, oldest first, with their ids.
	stored := func(serial string) (whats, ids []string) {
		t.Helper()
		c, err := stores.Events.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
			FilterSubjects: []string{fmt.Sprintf(broker.EventDevT, "n1", serial, "*")}})
		require.NoError(t, err)
		info, err := c.Info(ctx)
		require.NoError(t, err)
		for pending := info.NumPending; pending > 0; pending-- {
			msg, err := c.Next(jetstream.FetchMaxWait(5 * time.Second))
			require.NoError(t, err)
			var ev broker.Event
			require.NoError(t, json.Unmarshal(msg.Data(), &ev))
			whats, ids = append(whats, ev.What), append(ids, msg.Headers().Get(jetstream.MsgIDHeader))
		}
		return whats, ids
	}
	flush := func() {
		t.Helper()
		_, failed := m.flush(ctx, false) // (pending: the registry entries wait for their turn)
		require.False(t, failed)
	}

	// Shown again: the loss's offline event, alone, then online.
	lost := lostEntry("p1", time.Now())
	m.writtenOffline(lost)
	m.Device(online("p1"))
	flush()
	whats, ids := stored("p1")
	_, id := broker.LostDeviceEvent(lost)
	require.Equal(t, []string{broker.StateOffline}, whats, "the first flush")
	assert.Equal(t, id, ids[0], "the loss's offline event is not under the gateway's id")
	flush()
	whats, _ = stored("p1")
	assert.Equal(t, []string{broker.StateOffline, broker.StateOnline}, whats)
	m.reshow() // the same loss heard again: nothing more
	flush()
	whats, _ = stored("p1")
	assert.Equal(t, []string{broker.StateOffline, broker.StateOnline}, whats, "after a reshow")

	// A state the scheduler tells (a lease the loss revoked): after the loss's offline event too.
	m.writtenOffline(lostEntry("p2", time.Now()))
	m.Event(broker.Event{V: broker.WireVersion, Kind: "device", Serial: "p2", Node: "n1", What: broker.StateOnline, Epoch: 4})
	m.Device(online("p2")) // the scheduler recorded it: not again
	flush()
	flush()
	whats, _ = stored("p2")
	assert.Equal(t, []string{broker.StateOffline, broker.StateOnline}, whats, "a state the scheduler told")

	// Shown again still leased (the node has not revoked the lease the loss ended yet): nothing
	// of it; the revoke's online comes after the loss's offline event. It recorded "leased" after
	// the loss, then "online" (a clean-clone run of TestDeviceBackAfterALossIsRecordedOnline).
	m.writtenOffline(lostEntry("p4", time.Now()))
	leased := online("p4")
	leased.State, leased.Holder = broker.StateLeased, "alice"
	m.Device(leased)
	m.Event(broker.Event{V: broker.WireVersion, Kind: "device", Serial: "p4", Node: "n1", What: broker.StateOnline, Epoch: 4})
	flush()
	flush()
	whats, _ = stored("p4")
	assert.Equal(t, []string{broker.StateOffline, broker.StateOnline}, whats, "shown leased before the revoke")

	// The loss's event heard before its entry (leased): the node answers, the revoke's online is
	// recorded after the gateway's offline event (stored before the loss's event was sent), and
	// the entry, seen next, records nothing more. It recorded offline, online, online. A verdict
	// written over the answer (the answer's epoch) is another loss: offline, online again.
	gatewaysOffline := lostEntry("p5", time.Now())
	ev, id := broker.LostDeviceEvent(gatewaysOffline)
	data, err := json.Marshal(ev)
	require.NoError(t, err)
	_, err = stores.JS.PublishMsg(ctx, &nats.Msg{Subject: fmt.Sprintf(broker.EventDevT, "n1", "p5", broker.StateOffline),
		Data: data}, jetstream.WithMsgID(id))
	require.NoError(t, err)
	m.answering(map[string]uint64{"p5": gatewaysOffline.Epoch})
	m.Event(broker.Event{V: broker.WireVersion, Kind: "device", Serial: "p5", Node: "n1", What: broker.StateOnline, Epoch: 4})
	m.Device(online("p5"))
	flush()
	m.writtenOffline(gatewaysOffline)
	m.reshow()
	flush()
	flush()
	whats, _ = stored("p5")
	assert.Equal(t, []string{broker.StateOffline, broker.StateOnline}, whats, "the loss's event heard before its entry")
	over := lostEntry("p5", time.Now())
	over.Epoch = 4
	m.writtenOffline(over)
	m.reshow()
	flush()
	flush()
	whats, _ = stored("p5")
	assert.Equal(t, []string{broker.StateOffline, broker.StateOnline, broker.StateOffline, broker.StateOnline}, whats,
		"a verdict over the answer")

	// An old entry: online only.
	m.writtenOffline(lostEntry("p3", time.Now().Add(-2*lostEventFresh)))
	m.Device(online("p3"))
	flush()
	whats, _ = stored("p3")
	assert.Equal(t, []string{broker.StateOnline}, whats, "an old loss entry")
}
