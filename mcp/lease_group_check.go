package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/corral-farm/corral/broker"
)

// checkHeld asks the nodes whether every lease taken for the group is still held, before the
// group is granted as "all held". While the caller waited for its last devices, a device
// taken early may have lost its lease: revoked (an operator's forced release, its node lost
// or restarted), or at its maximum; the gateway's clock knows only its idle expiry. Members
// found lost leave held, with why, so that they (or other devices) are taken again within
// the caller's wait. A member of a node that is not asked (a newer one) counts as held: it
// cannot be checked. The error is for a check that could not be made at all.
func (t *groupTaker) checkHeld(ctx context.Context, store groupFarm) (allHeld bool, err error) {
	lctx, cancel := context.WithTimeout(ctx, memberGrace)
	defer cancel()
	leases, err := t.g.farm.Leases(lctx)
	var part *broker.PartialError
	if err != nil && !errors.As(err, &part) {
		return false, fmt.Errorf("whether the devices taken are still held could not be checked: %w", err)
	}
	allHeld = true
	for i := len(t.held) - 1; i >= 0; i-- {
		h := t.held[i]
		why, lost, unanswered := t.lostWhy(ctx, store, h, leases, part)
		if !lost {
			continue
		}
		allHeld = false
		t.refusals[h.dev.Serial] = h.dev.Serial + ": " + why
		t.held = slices.Delete(t.held, i, i+1)
		if unanswered { // it may hold the lease still: give it back rather than leave it to expire
			t.g.releaseMember(ctx, h.lease)
		}
	}
	return allHeld, nil
}

// lostWhy says whether the lease taken for h is gone from its node's leases, or its node did
// not answer (unanswered), and why.
func (t *groupTaker) lostWhy(ctx context.Context, store groupFarm, h heldLease, leases []broker.Lease, part *broker.PartialError) (why string, lost, unanswered bool) {
	node := h.lease.Node
	if part != nil {
		if err, missing := part.Missing[node]; missing {
			t.dropped[h.dev.Serial] = true
			return fmt.Sprintf("whether its lease was still held after the wait could not be checked (node %s did not answer: %v)", node, err), true, true
		}
		if part.Newer != nil {
			if _, newer := part.Newer.Nodes[node]; newer {
				return "", false, false
			}
		}
	}
	hash := broker.HandleHash(h.lease.Handle)
	if slices.ContainsFunc(leases, func(l broker.Lease) bool {
		return l.Node == node && l.Serial == h.lease.Serial && l.Epoch == h.lease.Epoch && (l.HandleSHA256 == "" || l.HandleSHA256 == hash)
	}) {
		return "", false, false
	}
	ended := t.g.whyEnded(ctx, store, broker.GroupMember{Serial: h.lease.Serial, Node: node, Epoch: h.lease.Epoch, HandleSHA256: hash})
	return "its lease ended while the other devices were waited for (" + ended + ")", true, false
}
