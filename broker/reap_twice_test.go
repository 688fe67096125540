package broker

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"
)

// QA: a node stalled (kill -STOP), back (kill -CONT), and stalled again within the event
// stream's 2-minute deduplication window was lost twice, both gateways logged it twice, and
// the stream held only the first loss: the second one's events had the first's ids (node and
// boot). Each loss is recorded now, still once however many gateways declare it.
func TestSecondLossOfOneBootIsRecorded(t *testing.T) {
	s := openStores(t)
	const node, boot, serial = "n1", "boot-1", "d1"
	putDevice(t, s, DeviceEntry{Serial: serial, Node: node, State: StateOnline, Epoch: 4})
	nc, err := nats.Connect(s.JS.Conn().ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	// Verdicts come only when the test sweeps, so that both gateways give theirs on cue.
	gateways := []*Client{startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour}),
		startClient(t, s, ClientOptions{Reap: true, LostAfter: time.Hour})}
	lostSubject := fmt.Sprintf(EventNodeT, node, "lost")

	sent := time.Now()
	for loss := uint64(1); loss <= 2; loss++ {
		// The node beats (again, in the same run), its device online, then falls silent.
		sent = sent.Add(time.Second)
		b, err := json.Marshal(Heartbeat{V: WireVersion, Node: node, Boot: boot, Sent: sent})
		require.NoError(t, err)
		require.NoError(t, nc.Publish(fmt.Sprintf(HeartbeatT, node), b))
		want := sent.UTC().Format(time.RFC3339Nano)
		for i, c := range gateways {
			require.Eventually(t, func() bool {
				d, ok := c.Device(serial)
				return c.lastBeats.of(node) == want && c.live.back(node) && ok && d.State == StateOnline
			}, waitLong, 5*time.Millisecond, "loss %d: gateway %d never heard the node's beat with its device online", loss, i)
		}
		for i, c := range gateways {
			lost := c.live.sweep(time.Now().Add(2 * time.Hour))
			require.Equal(t, [][2]string{{node, boot}}, lost, "loss %d: gateway %d's verdict", loss, i)
			c.nodeLost(node, boot)
		}
		require.EqualValues(t, loss, events(t, s, lostSubject), "loss %d: the node's losses recorded", loss)
		require.EqualValues(t, loss, events(t, s, devOffline(node, serial)), "loss %d: the device's offline events", loss)
		if loss == 1 {
			// The node hears of its loss and shows its device again.
			putDevice(t, s, DeviceEntry{Serial: serial, Node: node, State: StateOnline, Epoch: 5})
		}
	}
}
