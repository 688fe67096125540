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
// every end is a lease of its previous run, revoked now.

// leaseEndsWait bounds the reads: a NATS server whose users are from an older Corral refuses
// them, and the request waits for its deadline.
const leaseEndsWait = 5 * time.Second

// leaseEnds are the events that end a lease.
var leaseEnds = []string{broker.LeaseExpired, broker.LeaseReleased, broker.LeaseRevoked}

// unendedLeases returns the granted events, of node's devices among known, that no end event
// followed.
func unendedLeases(ctx context.Context, events jetstream.Stream, node string, known map[string]broker.DeviceEntry) ([]broker.Event, error) {
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
	var out []broker.Event
	for _, serial := range slices.Sorted(maps.Keys(known)) {
		granted, err := last(serial, "granted")
		if err != nil {
			return out, err
		}
		if granted == nil {
			continue
		}
		ended := false
		for _, what := range leaseEnds {
			end, err := last(serial, what)
			if err != nil {
				return out, err
			}
			ended = ended || end != nil && end.Sequence > granted.Sequence
		}
		var ev broker.Event
		if ended || json.Unmarshal(granted.Data, &ev) != nil {
			continue
		}
		ev.Serial = serial
		out = append(out, ev)
	}
	return out, nil
}

// endLeasesOfLastRun records the end of the leases the node's previous run never ended, revoked
// as the node lost them, before this run grants any; and keeps them, so that a holder passing
// one is told so (past_leases.go).
func (n *Node) endLeasesOfLastRun(ctx context.Context) {
	unended, err := unendedLeases(ctx, n.cfg.Stores.Events, n.cfg.ID, n.known)
	if err != nil {
		n.cfg.Log.Warn("leases of the node's previous run may have no end event", "err", err)
	}
	now := time.Now()
	for _, g := range unended {
		reason := fmt.Sprintf("node %s was killed or crashed while the lease was held, and restarted", n.cfg.ID)
		n.mirror.Event(broker.Event{V: broker.WireVersion, Kind: "lease", Serial: g.Serial, Node: n.cfg.ID,
			What: broker.LeaseRevoked, Reason: reason, Holder: g.Holder, Epoch: g.Epoch, At: now})
		n.mirror.Lease(g.Serial, nil) // its mirror too, if no gateway deleted it
		// A grant of an older Corral has no hash: its holder hears the node does not know it.
		if g.HandleSHA256 != "" {
			n.mirror.pastLease(g.Serial, actors.PastLease{HandleSHA256: g.HandleSHA256, What: broker.LeaseRevoked, Reason: reason, At: now})
		}
		n.cfg.Log.Warn("lease revoked", "serial", g.Serial, "holder", g.Holder, "epoch", g.Epoch, "reason", reason)
	}
}
