package broker

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reaping gateway's loss event names the verdict its registry entries do (loss_verdict.go):
// the node, hearing the entries first, takes the event as a copy of the verdict it answered.
// A second gateway's verdict on the same loss, whose event has the same Nats-Msg-Id, is named
// otherwise: its callers were told at its verdict, and the node counts it as news.
func TestReapEventNamesTheVerdictOfItsEntries(t *testing.T) {
	s := openStores(t)
	putDevice(t, s, DeviceEntry{Serial: "d1", Node: "n1", State: StateLeased, Holder: "alice (cli)", Epoch: 7})
	putDevice(t, s, DeviceEntry{Serial: "d2", Node: "n1", State: StateOnline, Epoch: 2})

	nodeConn, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	defer nodeConn.Close()
	told, err := nodeConn.SubscribeSync(fmt.Sprintf(EventNodeT, "n1", "lost"))
	require.NoError(t, err)
	require.NoError(t, nodeConn.Flush())

	c := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour})
	require.Len(t, c.Devices(), 2)
	c.nodeLost("n1", "boot-a")
	first, err := told.NextMsg(waitLong)
	require.NoError(t, err, "the node was not told it is lost")
	verdict := EventVerdict(first.Header)
	require.NotEmpty(t, verdict, "the loss event names no verdict")
	for _, serial := range []string{"d1", "d2"} {
		d, _ := getDevice(t, s, serial)
		require.True(t, DeclaredLost(d), "%s: %+v", serial, d)
		assert.Equal(t, verdict, EntryVerdict(d), "%s: the entry names another verdict than the event", serial)
	}

	c2 := startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour})
	waitCached(t, c2, "d1", StateOffline)
	waitCached(t, c2, "d2", StateOffline)
	c2.nodeLost("n1", "boot-a")
	second, err := told.NextMsg(waitLong)
	require.NoError(t, err, "the second gateway did not tell the node")
	assert.NotEmpty(t, EventVerdict(second.Header), "the second loss event names no verdict")
	assert.NotEqual(t, verdict, EventVerdict(second.Header), "two gateways' verdicts have one name")
	assert.Equal(t, first.Header.Get("Nats-Msg-Id"), second.Header.Get("Nats-Msg-Id"), "one loss, recorded once")
}
