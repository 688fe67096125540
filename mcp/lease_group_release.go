package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// releaseGroup gives back every member of a group lease, last in the group's order first, and
// forgets the group. Members that had already ended are named with why. serial, if given, must
// be a member: the whole group is released either way.
func (g *Gateway) releaseGroup(ctx context.Context, handle, serial string) *mcpgo.CallToolResult {
	store, grp, handles, errRes := g.findGroup(ctx, "release_device", handle)
	if errRes != nil {
		return errRes
	}
	if res := g.mayReleaseGroup(ctx, grp); res != nil {
		return res
	}
	if _, ok := grp.Member(serial); serial != "" && !ok {
		return g.refuseBadInput(ctx, fmt.Sprintf("release_device: device %s is not in lease group %s (its devices: %s); leave serial out to release the group",
			serial, grp.ID, strings.Join(grp.Serials(), ", ")))
	}
	var released, ended, failed []string
	for _, m := range slices.Backward(grp.Members) {
		// Not cut short by a caller who goes away: a group is released whole.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), memberGrace)
		ans, err := g.farm.Release(rctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: m.Serial, Handle: handles[m.Serial],
			By: holderFrom(ctx).String()})
		cancel()
		switch {
		case nodeLostEndedIt(err):
			ended = append(ended, fmt.Sprintf("%s (%s)", m.Serial, g.whyEnded(ctx, store, m)))
		case err != nil:
			failed = append(failed, fmt.Sprintf("%s (%v)", m.Serial, err))
		case ans.OK:
			released = append(released, m.Serial)
		case ans.Code == broker.CodeStaleLease:
			ended = append(ended, fmt.Sprintf("%s (%s)", m.Serial, g.whyEnded(ctx, store, m)))
		default:
			failed = append(failed, leaseRefusal("release_device", m.Serial, ans, holderFrom(ctx)))
		}
	}
	if len(failed) > 0 {
		setOutcome(ctx, broker.OutcomeLost)
		return errorResult(fmt.Sprintf("release_device: group %s: released %d; could not release %s; call release_device with the group's lease again",
			grp.ID, len(released), strings.Join(failed, "; ")))
	}
	msg := fmt.Sprintf("Released group %s", grp.ID)
	if len(released) > 0 {
		msg += ": devices " + strings.Join(released, ", ")
	}
	msg += "."
	if len(ended) > 0 {
		msg += " Already ended: " + strings.Join(ended, "; ") + "."
	}
	if err := store.DeleteLeaseGroup(ctx, handle); err != nil {
		msg += fmt.Sprintf(" The group is still listed (%v) until its devices' maximum; its handle no longer holds any device.", err)
	}
	return structuredResult(ctx, tools.MessageResult{Message: msg + g.forgetSessionLease(ctx, handle)})
}

// nodeLostEndedIt says whether a member's release failed because its node is lost or stopped:
// the node's loss ended its leases (the gateways revoke them), so the member has ended, and
// asking again cannot change that. A node at a cut-off edge site is not lost: it still holds
// its leases there, and the release is to be asked again once the link is back.
func nodeLostEndedIt(err error) bool {
	return errors.Is(err, broker.ErrNodeLost) && !errors.Is(err, broker.ErrSiteCutOff)
}

// mayReleaseGroup refuses the group of another principal with devices outside the caller's
// rule, before any is released or anything of it is said (its id, its devices): to a
// non-operator as a handle no group has, as leaseHidden does a single lease (a denial told
// that the handle was live), counted and logged; an operator is denied (its own group:
// release_own.go).
func (g *Gateway) mayReleaseGroup(ctx context.Context, grp broker.LeaseGroup) *mcpgo.CallToolResult {
	p := g.principal(ctx)
	if p == nil || g.isCaller(ctx, grp.Holder.Principal) {
		return nil
	}
	for _, m := range grp.Members {
		switch {
		case g.mayUseSerial(ctx, m.Serial):
		case !p.Operator:
			g.countHidden(ctx, m.Serial)
			return g.noGroup(ctx, "release_device")
		default: // an operator, who may see any lease, is told why
			return g.deny(ctx, denial{reason: reasonDevice, serial: m.Serial, rule: p.tagRule()}, fmt.Sprintf(
				"denied by policy: principal %q may not release lease group %s: it is not its own and holds devices outside its rule (%s); list_leases shows the leases it may release",
				p.Name, grp.ID, p.tagRule()))
		}
	}
	return nil
}
