package mcp

import (
	"context"
	"errors"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// ruleOwnLease is the rule that refuses abort_task under a lease the caller's principal does
// not hold.
const ruleOwnLease = "abort_task by lease aborts only under the caller's own leases"

// Under a policy, abort_task by a lease (or lease group) handle that no lease or group of the
// caller's principal has now is refused: another principal's, or one that ended, or none at
// all, in the same words. The node's answer to another principal's handle ("no task is
// currently running", as it leaves devices outside the caller's tags alone) was false, and
// beside a bogus handle's stale_lease it told which handles are held. An operator, who may
// abort anything, and a call without a policy go on as before. A read of the leases that
// fails lets the abort go on: a node that does not answer may hold the lease. A read of a
// group that fails refuses it, naming no group, to be called again: abortGroup read the
// group again and, that read working, named it and its devices to any caller.

// ownLeasesOnly reports whether abort_task by lease is held to the caller's own leases.
func (g *Gateway) ownLeasesOnly(ctx context.Context) bool {
	p := g.principal(ctx)
	return g.opts.Policy != nil && p != nil && !p.Operator
}

// notOwnLease refuses abort_task under a handle whose lease or group owner holds now ("" for
// none) unless owner is the caller's principal (nil then).
func (g *Gateway) notOwnLease(ctx context.Context, owner string) *mcpgo.CallToolResult {
	p := g.principal(ctx)
	if p == nil || owner == p.Name {
		return nil
	}
	return g.deny(ctx, denial{reason: reasonHolder, rule: ruleOwnLease}, fmt.Sprintf("denied by policy: principal %q may not abort under this lease: "+
		"no lease or lease group it holds now has this handle (rule: %s); list_leases shows its leases", p.Name, ruleOwnLease))
}

// mayAbortUnderGroup refuses, when ownLeasesOnly, abort_task under a lease group handle no
// group of the caller's principal has now.
func (g *Gateway) mayAbortUnderGroup(ctx context.Context, handle string) *mcpgo.CallToolResult {
	if !g.ownLeasesOnly(ctx) {
		return nil
	}
	store, ok := g.groupStore()
	if !ok {
		return nil // abortGroup says this gateway keeps no lease groups
	}
	owner, err := groupOwner(ctx, store, handle)
	if err != nil {
		g.log.Warn("abort_task: lease group not read; the abort is refused", "err", err)
		setOutcome(ctx, broker.OutcomeLost)
		return errorResult(fmt.Sprintf("abort_task: could not check that this lease group handle is principal %q's: "+
			"the lease groups could not be read just now; nothing was aborted: call abort_task again in a moment", g.principal(ctx).Name))
	}
	return g.notOwnLease(ctx, owner)
}

// groupOwner names the principal holding a lease group handle now; "" if none does. The
// error is for a group that could not be read.
func groupOwner(ctx context.Context, store groupFarm, handle string) (string, error) {
	grp, err := store.LeaseGroup(ctx, handle)
	if errors.Is(err, broker.ErrNotFound) {
		return "", nil
	}
	return grp.Holder.Principal, err
}
