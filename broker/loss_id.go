package broker

import (
	"strconv"
	"sync"
	"time"
)

// A loss is recorded once however many gateways declare it: its events carry a Nats-Msg-Id,
// which the event stream deduplicates within its window (2 minutes). The node's lost event's
// id names the loss, not only the node's run: a node stalled (kill -STOP), back, and stalled
// or killed again within the window is lost twice in one boot, and both losses are recorded.
// What every gateway knows alike of one loss is the last heartbeat the node sent before it
// fell silent (they all read the same beats): the time the node wrote in it. Its devices'
// offline events are named by the entries written for the loss (LostDeviceEvent).

// lastBeats are the send times of each node's latest heartbeat, as the node wrote them.
type lastBeats struct {
	mu   sync.Mutex
	sent map[string]string
}

// saw records a beat of node: its sent field, from hb or else read from the raw data (a
// newer node's beat, whose fields this Corral does not decode).
func (b *lastBeats) saw(hb Heartbeat, data []byte) {
	var sent string
	if !hb.Sent.IsZero() {
		sent = hb.Sent.UTC().Format(time.RFC3339Nano)
	} else {
		sent = stringField(data, "sent")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sent == nil {
		b.sent = map[string]string{}
	}
	b.sent[hb.Node] = sent
}

// of is when node sent its latest beat this client read ("" if none was read).
func (b *lastBeats) of(node string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sent[node]
}

// lossID is the Nats-Msg-Id of the loss event of node's run boot, silent since its beat sent
// at lastSent.
func lossID(node, boot, lastSent string) string {
	return "lost-" + node + "-" + boot + "-" + lastSent
}

// LostDeviceEvent is the offline event of e, a registry entry a gateway wrote for the loss of
// e's node, and the event's Nats-Msg-Id. Both are a function of the entry alone, so the gateway
// whose write won and the node, which reads its entries, record the same event under the same
// id, and the stream keeps whichever lands first. The node records it before it records the
// device shown again (nodes/shown_again.go): a node still connected may see the entry before
// the gateway's event lands, and the device's events must read offline, then online. The id
// names the entry by its node, serial and Updated, which the writing gateway set to the
// nanosecond: of the gateways that reap one loss only one's write wins, so one loss of a device
// has one id, and two losses two. (A gateway before this id wrote one of its own: beside a node
// of now, its event and the node's are both kept, offline twice.)
func LostDeviceEvent(e DeviceEntry) (Event, string) {
	ev := Event{V: WireVersion, Kind: "device", Serial: e.Serial, Node: e.Node, What: StateOffline,
		Reason: e.Reason, Epoch: e.Epoch, At: e.Updated}
	return ev, "lost-" + e.Node + "-" + Token(e.Serial) + "-" + strconv.FormatInt(e.Updated.UnixNano(), 10)
}
