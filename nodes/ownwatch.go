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
		w, err := n.cfg.Stores.Registry.Watch(ctx, n.cfg.ID+".*", jetstream.UpdatesOnly(), jetstream.IgnoreDeletes())
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
// with its event (a normal loss: the node hears both, one verdict); an entry written offline over
// one the node wrote after answering the loss is another gateway's late verdict (over), which
// the node must answer again (connection.go, declaredLost).
func (n *Node) followOwnEntries(ctx context.Context, w jetstream.KeyWatcher) {
	shown := map[string]time.Time{} // serial → when its last entry not of a loss came
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
			if json.Unmarshal(kve.Value(), &e) != nil || e.Node != n.cfg.ID {
				continue
			}
			if !broker.DeclaredLost(e) {
				shown[e.Serial] = time.Now()
			} else if n.servesAny([]broker.DeviceEntry{e}, broker.DeclaredLost) {
				n.declaredLost(" (its registry entries say so)", n.answeredBefore(shown[e.Serial]))
			}
		}
	}
}

// answeredBefore says whether the node had answered a loss before at: an entry it wrote then
// came after its answer, and a loss's entry over it is a verdict after the answer.
func (n *Node) answeredBefore(at time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return !n.lostAt.IsZero() && at.After(n.lostAt)
}
