package mcp

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/broker"
)

// release_device {"lease": H} without serial finds the lease's device among the leases held.
// One no node holds any more (its node was lost, the gateways' lease mirror cleared, and the
// node, back, revoked it) is found by its granted event, which carries the hash of its handle:
// the device's node then says what became of the lease, as it does when serial is passed.

// The search reads the grants of the last grantSearchSince, the newest grantSearchMax of them:
// a lease lives at most 4 hours unless the nodes' --lease-max says longer.
const (
	grantSearchSince = 24 * time.Hour
	grantSearchMax   = 10_000
)

// leaseGrants is what the search needs beyond Farm: broker.Client reads the event stream.
type leaseGrants interface {
	LeaseGrant(ctx context.Context, q broker.GrantQuery) (broker.Event, bool, error)
}

// grantedDevice finds the lease of handle's granted event, which names its device (Serial)
// and holder; none (Serial "") when no grant read names it (a lease of an older Corral, whose
// grant has no hash; one granted before the search's bounds), or the grants could not be read
// (err).
func (g *Gateway) grantedDevice(ctx context.Context, handle string) (broker.Event, error) {
	grants, ok := farmAs[leaseGrants](g.farm)
	if !ok {
		return broker.Event{}, nil
	}
	ev, found, err := grants.LeaseGrant(ctx, broker.GrantQuery{HandleSHA256: broker.HandleHash(handle),
		Since: time.Now().Add(-grantSearchSince), MaxScan: grantSearchMax})
	if err != nil {
		g.log.Warn("release_device: lease grants not read", "err", err) // never the handle
		return broker.Event{}, err
	}
	if !found {
		return broker.Event{}, nil
	}
	return ev, nil
}

// unknownLeaseText is release_device's refusal of a handle without serial that no lease held
// now has and no grant searched names: its device is unknown, so serial is needed for its
// node to say what became of it.
func unknownLeaseText(grantsErr error) string {
	msg := fmt.Sprintf("this lease is no longer known: no lease held now has this handle, and no lease grant of the last %s on record names it "+
		"(a lease of an older Corral is recorded without one)", shortDuration(grantSearchSince))
	if grantsErr != nil {
		msg = fmt.Sprintf("this lease is no longer known: no lease held now has this handle, and the lease grants on record could not be read (%v)", grantsErr)
	}
	return msg + ". It ended (expired, released or revoked) or was never granted: pass serial with the lease, and its device's node says which " +
		"(list_leases shows the leases held; acquire_device takes a new one)"
}

// shortDuration writes whole hours as "24h", not "24h0m0s".
func shortDuration(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return d.String()
}
