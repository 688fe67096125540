package broker

import (
	"strconv"
	"sync"
	"time"
)

// A loss is recorded once however many gateways declare it: its events carry a Nats-Msg-Id,
// which the event stream deduplicates within its window (2 minutes). The id names the loss,
// not only the node's run: a node stalled (kill -STOP), back, and stalled or killed again
// within the window is lost twice in one boot, and both losses are recorded. What every
// gateway knows alike of one loss is the last heartbeat the node sent before it fell silent
// (they all read the same beats): the time the node wrote in it.

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

// lostDeviceID is the Nats-Msg-Id of the offline event of a device written offline for a loss:
// the registry revision of that write names it (only one gateway's write wins a revision).
func lostDeviceID(loss, serial string, revision uint64) string {
	return loss + "-" + Token(serial) + "-" + strconv.FormatUint(revision, 10)
}
