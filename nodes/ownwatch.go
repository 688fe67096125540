package nodes

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// ownWatchRetry spaces the attempts to open the watch of the node's registry entries.
const ownWatchRetry = 5 * time.Second

// watchOwnEntries follows the node's registry entries until ctx ends. A gateway declaring the
// node lost writes its devices offline and then sends the loss event, which is how the node
// hears of it; but a write sent into a NATS stall can land after the gateway gave up (QA: a
// 40 s stall, the event never sent), and the node, connected all along, would never hear:
// its devices refused as offline while it serves them. So an entry a gateway wrote for a loss,
// of a device the node serves, tells the node as the event would, whatever became of the event.
func (n *Node) watchOwnEntries(ctx context.Context) {
	for {
		w, err := n.cfg.Stores.WatchNodeEntries(ctx, n.cfg.ID, broker.NodeWatchLost)
		if err == nil {
			n.followOwnEntries(ctx, w)
			_ = w.Stop()
		} else if ctx.Err() == nil {
			n.cfg.Log.Warn("could not watch this node's registry entries; a loss verdict whose event it misses leaves "+
				"its devices offline until their state changes; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(ownWatchRetry):
		}
	}
}

// followOwnEntries reads w's updates until ctx ends or the watch does. A loss's entries come
// with its event: the node hears both, one verdict (connection.go, declaredLost).
func (n *Node) followOwnEntries(ctx context.Context, w jetstream.KeyWatcher) {
	for {
		select {
		case <-ctx.Done():
			return
		case kve, ok := <-w.Updates():
			if !ok {
				return
			}
			if kve == nil {
				continue // the end of the (empty) initial values
			}
			var e broker.DeviceEntry
			if json.Unmarshal(kve.Value(), &e) == nil && e.Node == n.cfg.ID &&
				n.servesAny([]broker.DeviceEntry{e}, broker.DeclaredLost) {
				n.declaredLost(" (its registry entries say so)", &e)
			}
		}
	}
}

// epochs is the epoch of each device as last shown: a loss entry of a later epoch than the
// node's devices had when it answered the loss was written over its answer.
func (m *natsMirror) epochs() map[string]uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]uint64, len(m.shown))
	for serial, e := range m.shown {
		out[serial] = e.Epoch
	}
	return out
}
