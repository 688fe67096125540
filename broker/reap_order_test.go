package broker

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reaped device's offline event is LostDeviceEvent of the entry the gateway wrote, under its
// id: the node, which reads that entry and records the same event before it records the device
// shown again (nodes/shown_again.go), is kept once with the gateway's, whichever lands first.
func TestReapedDevicesEventIsTheOneItsNodeRecords(t *testing.T) {
	s := openStores(t)
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateOnline, Epoch: 4})
	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour})
	c.nodeLost("n1", "boot-a")

	written, _ := getDevice(t, s, "d1")
	require.True(t, DeclaredLost(written), "%+v", written)
	ev, id := LostDeviceEvent(written)
	msg, err := s.Events.GetLastMsgForSubject(t.Context(), devOffline("n1", "d1"))
	require.NoError(t, err)
	assert.Equal(t, id, msg.Header.Get(jetstream.MsgIDHeader), "the gateway's id")
	var recorded Event
	require.NoError(t, json.Unmarshal(msg.Data, &recorded))
	assert.True(t, ev.At.Equal(recorded.At), "recorded at %s, the entry updated at %s", recorded.At, ev.At)
	recorded.At = ev.At
	assert.Equal(t, ev, recorded)

	// The node's, from the entry it read.
	data, err := json.Marshal(ev)
	require.NoError(t, err)
	ack, err := s.JS.PublishMsg(t.Context(), &nats.Msg{Subject: devOffline("n1", "d1"), Data: data}, jetstream.WithMsgID(id))
	require.NoError(t, err)
	assert.True(t, ack.Duplicate, "the node's offline event kept beside the gateway's")
	assert.EqualValues(t, 1, events(t, s, devOffline("n1", "d1")))
}

// The id names the entry: another loss of the device (another entry) is another event.
func TestLostDeviceEventIDNamesTheEntry(t *testing.T) {
	at := time.Date(2026, 12, 5, 4, 57, 4, 123456789, time.UTC)
	e := DeviceEntry{Serial: "10.0.0.7:5555", Node: "n1", State: StateOffline, Reason: "node n1 lost: no heartbeat for 2.5s", Epoch: 4, Updated: at}
	_, id := LostDeviceEvent(e)
	b, err := json.Marshal(e)
	require.NoError(t, err)
	var read DeviceEntry // as the node reads it
	require.NoError(t, json.Unmarshal(b, &read))
	_, readID := LostDeviceEvent(read)
	assert.Equal(t, id, readID, "the entry read back names another event")
	e.Updated = at.Add(time.Nanosecond)
	_, next := LostDeviceEvent(e)
	assert.NotEqual(t, id, next, "two entries, one id")
	assert.Equal(t, "lost-n1-"+Token(e.Serial)+"-1796446624123456789", id)
}
