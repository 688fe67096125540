package nodes

import (
	"context"
	"encoding/json"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// lostWords are why the node's leases are revoked when the farm declares it lost, after "node
// n1 ": in a refusal's parentheses ("was revoked at T (node n1 missed …)"), so it has none.
const lostWords = "missed its heartbeats and was declared lost by the farm"

// lostCheckTimeout bounds the read of the node's registry entries after a reconnection.
const lostCheckTimeout = 5 * time.Second

// watchConnection follows the node's NATS connection until ctx ends. A node cut off from NATS
// for longer than the farm waits is declared lost while it cannot hear it (the loss event is
// a plain message, gone by the time it is back), and the gateway's offline entries would stay
// in the registry, its devices refused as offline while it serves them. So while the
// connection is down the node's registry entries wait; once it is back, the node reads them,
// and if the farm declared it lost meanwhile it does what the event would have made it do.
func (n *Node) watchConnection(ctx context.Context) {
	changes := n.cfg.NC.StatusChanged(nats.CONNECTED, nats.RECONNECTING, nats.DISCONNECTED)
	defer n.cfg.NC.RemoveStatusListener(changes)
	for {
		select {
		case <-ctx.Done():
			return
		case st := <-changes:
			switch st {
			case nats.RECONNECTING, nats.DISCONNECTED:
				n.mirror.holdRegistry()
			case nats.CONNECTED:
				n.silence.connected() // NATS held nothing for the connection that is gone (silence.go)
				n.checkDeclaredLost(ctx)
				n.mirror.releaseRegistry()
			}
		}
	}
}

// checkDeclaredLost reads the node's registry entries: one of a device it serves that a
// gateway marked offline when it declared the node lost says the farm did so.
func (n *Node) checkDeclaredLost(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, lostCheckTimeout)
	defer cancel()
	entries, err := n.registryEntries(ctx)
	if err != nil {
		n.cfg.Log.Warn("could not read this node's registry entries after reconnecting to NATS; if the farm declared "+
			"this node lost meanwhile, its devices show offline until their state changes", "err", err)
		return
	}
	lost := n.served(entries, broker.DeclaredLost)
	for _, e := range lost {
		n.mirror.writtenOffline(e) // each is recorded shown again (shown_again.go)
	}
	if len(lost) > 0 {
		n.declaredLost(" while it was cut off from NATS (it is back)", nil)
	}
}

// servesAny says whether one of entries is of a device the node serves and satisfies cond.
func (n *Node) servesAny(entries []broker.DeviceEntry, cond func(broker.DeviceEntry) bool) bool {
	return len(n.served(entries, cond)) > 0
}

// served returns the entries of devices the node serves that satisfy cond.
func (n *Node) served(entries []broker.DeviceEntry, cond func(broker.DeviceEntry) bool) []broker.DeviceEntry {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []broker.DeviceEntry
	for _, e := range entries {
		if _, serves := n.devices[e.Serial]; serves && cond(e) {
			out = append(out, e)
		}
	}
	return out
}

// registryEntries reads the node's entries under its own keys.
func (n *Node) registryEntries(ctx context.Context) ([]broker.DeviceEntry, error) {
	w, err := n.cfg.Stores.WatchNodeEntries(ctx, n.cfg.ID, broker.NodeWatchReconnect)
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.Stop() }()
	var out []broker.DeviceEntry
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case kve := <-w.Updates():
			if kve == nil {
				return out, nil
			}
			var e broker.DeviceEntry
			if json.Unmarshal(kve.Value(), &e) == nil && e.Node == n.cfg.ID {
				out = append(out, e)
			}
		}
	}
}

// declaredLost revokes the node's leases and fails its queued callers (the farm told them
// the node was lost: SCHEDULER.md rule 7, fencing), and shows its devices as they are (the
// farm wrote them offline); the node goes on serving. Told twice of one loss (the event and
// the registry, which a normal loss sends both, or two gateways' verdicts), it says so once
// and revokes again only what was granted since it answered: a lease (or a call's implicit
// one) granted between two gateways' verdicts is one whose caller the second told "lost", and
// kept it would hold the device until its idle expiry. A grant moves its device's epoch on,
// so a device whose epoch is past the one the answer gave it was granted since. A new loss
// needs the farm to hear the node again first, then LostAfter of silence. It shows its
// devices again each time: a gateway whose verdict came after the node had answered the
// first one wrote them offline over the node's entries, and they would stay so; that one it
// logs. lost is the registry's entry that told it (nil: the event, or a reconnection's
// read): one of an epoch above the one the device had when the node answered was written
// over the answer, which moved every device's epoch on (revokeAll).
func (n *Node) declaredLost(how string, lost *broker.DeviceEntry) {
	verdict := "" // a reconnection's read: which verdict, it cannot tell
	if lost != nil {
		verdict = broker.EntryVerdict(*lost)
	}
	n.answerLoss(how, lost, verdict)
}

// heardLossEvent answers a gateway's loss event, whose header names its verdict
// (broker.LossVerdictHeader): the node may have heard its entries first.
func (n *Node) heardLossEvent(m *nats.Msg) { n.answerLoss("", nil, broker.EventVerdict(m.Header)) }

// answerLoss is declaredLost of the gateway's verdict named verdict ("": it cannot tell). A
// copy of a verdict it heard already (its entries, then its event) is heard again, however
// late, and revokes nothing: that gateway told its callers before it wrote either, so what
// the node granted since was asked for by callers it had not told.
func (n *Node) answerLoss(how string, lost *broker.DeviceEntry, verdict string) {
	news := n.silence.heardLost(verdict) // what comes next may have been answered so (silence.go)
	if lost != nil {
		n.mirror.writtenOffline(*lost) // before the answer shows it again (shown_again.go)
	}
	epochs := n.mirror.epochs() // before the answer moves them on
	n.mu.Lock()
	again := !news || !n.lostAt.IsZero() && time.Since(n.lostAt) < broker.LostAfter
	over := again && lost != nil && lost.Epoch > n.lostEpochs[lost.Serial]
	granted := again && news && grantedSince(n.lostEpochs, epochs)
	if !again {
		n.lostAt = time.Now()
	}
	if !again || granted {
		n.lostEpochs = epochs
	}
	n.mu.Unlock()
	switch {
	case granted:
		n.cfg.Log.Warn("the farm declared this node lost again" + how + "; revoking the leases granted since it answered the first verdict")
	case again && over:
		n.cfg.Log.Info("the farm declared this node lost again" + how + "; its leases are revoked already, showing its devices again")
	case again:
		n.cfg.Log.Debug("heard again of the loss this node answered already" + how)
	default:
		n.cfg.Log.Warn("the farm declared this node lost" + how + "; revoking its leases and showing its devices again")
	}
	if again && !granted {
		n.mirror.reshow()
		return
	}
	n.mirror.answering(epochs) // the revoke's states may come before the loss's entries (shown_again.go)
	n.system.Root.Send(n.sched, actors.RevokeAll{Reason: lostWords})
}

// grantedSince says whether a device was granted a lease or a call since the answer to a loss
// that found its devices at answered: the answer moved each epoch on by one, a grant moves it
// on again. A device the node did not have then is left out (its epoch came with it).
func grantedSince(answered, now map[string]uint64) bool {
	for serial, epoch := range now {
		if was, had := answered[serial]; had && epoch > was+1 {
			return true
		}
	}
	return false
}
