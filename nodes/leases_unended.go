package nodes

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// A node killed (kill -9, a crash, a power cut) ends none of its leases: the event stream has
// their granted events and no end, and an audit of corral.v1.events.lease.> sees leases that
// never ended. The farm told their holders the node was lost, but a gateway may not write lease
// events (and it clears what it knew of them: the registry's holder, the lease mirror). So the
// node, back, ends them: for each device it had, it reads the last granted event of its own and
// the last end event of each kind (a direct get by subject each, no scan), and a grant after
// every end is a lease of its previous run, revoked now. The end that did follow a grant (the
// revocation a clean stop records) is kept too, for that lease's holder.

// leaseEndsWait bounds the reads: a NATS server whose users are from an older Corral refuses
// them, and the request waits for its deadline.
const leaseEndsWait = 5 * time.Second

// leaseEnds are the events that end a lease.
var leaseEnds = []string{broker.LeaseExpired, broker.LeaseReleased, broker.LeaseRevoked}

// lastGrant is a device's last granted event of the node and the event that ended it; end is
// nil for a lease the node's previous run never ended.
type lastGrant struct {
	granted broker.Event
	end     *broker.Event
}

// lastGrants returns the last granted event of each of node's devices among known, with the
// end event that followed it, if one did.
func lastGrants(ctx context.Context, events jetstream.Stream, node string, known map[string]broker.DeviceEntry) ([]lastGrant, error) {
	if events == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, leaseEndsWait)
	defer cancel()
	last := func(serial, what string) (*jetstream.RawStreamMsg, error) {
		m, err := events.GetLastMsgForSubject(ctx, fmt.Sprintf(broker.EventLeaseT, node, broker.Token(serial), what))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the last %s lease event of %s from %s: %w (may this node's NATS user read its lease events? "+
				"run corral nats-auth again and reload nats-server)", what, serial, broker.EventStream, err)
		}
		return m, nil
	}
	var out []lastGrant
	for _, serial := range slices.Sorted(maps.Keys(known)) {
		granted, err := last(serial, "granted")
		if err != nil {
			return out, err
		}
		if granted == nil {
			continue
		}
		var end *jetstream.RawStreamMsg // the first end after the grant: a lease ends once
		for _, what := range leaseEnds {
			m, err := last(serial, what)
			if err != nil {
				return out, err
			}
			if m != nil && m.Sequence > granted.Sequence && (end == nil || m.Sequence < end.Sequence) {
				end = m
			}
		}
		g := lastGrant{}
		if json.Unmarshal(granted.Data, &g.granted) != nil {
			continue
		}
		g.granted.Serial = serial
		if end != nil {
			var ev broker.Event
			if json.Unmarshal(end.Data, &ev) != nil {
				continue
			}
			g.end = &ev
		}
		out = append(out, g)
	}
	return out, nil
}

// endLeasesOfLastRun records the end of the leases the node's previous run never ended, revoked
// as the node lost them, before this run grants any; and keeps them, with the last lease of
// each device that did end (revoked as the node stopped, expired, released), so that a holder
// passing one is told what became of it, not that the node does not know it (past_leases.go).
func (n *Node) endLeasesOfLastRun(ctx context.Context) {
	grants, err := lastGrants(ctx, n.cfg.Stores.Events, n.cfg.ID, n.known)
	if err != nil {
		n.cfg.Log.Warn("leases of the node's previous run may have no end event", "err", err)
	}
	now := time.Now()
	for _, lg := range grants {
		g := lg.granted
		if e := lg.end; e != nil {
			// A grant of an older Corral has no hash: its holder hears the node does not know it.
			if g.HandleSHA256 != "" {
				n.mirror.pastLease(g.Serial, actors.PastLease{HandleSHA256: g.HandleSHA256, What: e.What, Reason: e.Reason, At: e.At})
			}
			continue
		}
		reason := fmt.Sprintf("node %s was killed or crashed while the lease was held, and restarted", n.cfg.ID)
		at := now
		if e := n.known[g.Serial]; broker.DeclaredLost(e) { // the farm revoked it then, and told its holder
			at = e.Updated
		}
		n.mirror.Event(broker.Event{V: broker.WireVersion, Kind: "lease", Serial: g.Serial, Node: n.cfg.ID,
			What: broker.LeaseRevoked, Reason: reason, Holder: g.Holder, Epoch: g.Epoch, At: at})
		n.mirror.Lease(g.Serial, nil) // its mirror too, if no gateway deleted it
		if g.HandleSHA256 != "" {
			n.mirror.pastLease(g.Serial, actors.PastLease{HandleSHA256: g.HandleSHA256, What: broker.LeaseRevoked, Reason: reason, At: at})
		}
		n.cfg.Log.Warn("lease revoked", "serial", g.Serial, "holder", g.Holder, "epoch", g.Epoch, "reason", reason)
	}
}
