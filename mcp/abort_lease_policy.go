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
// abort anything, and a call without a policy go on as before. A read that fails lets the
// abort go on: a node that does not answer may hold the lease.

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
	owner, err := g.groupOwner(ctx, handle)
	if err != nil {
		return nil
	}
	return g.notOwnLease(ctx, owner)
}

// groupOwner names the principal holding a lease group handle now; "" if none does. The
// error is for groups that could not be read.
func (g *Gateway) groupOwner(ctx context.Context, handle string) (string, error) {
	store, ok := g.groupStore()
	if !ok {
		return "", errors.New("no lease groups")
	}
	grp, err := store.LeaseGroup(ctx, handle)
	if errors.Is(err, broker.ErrNotFound) {
		return "", nil
	}
	return grp.Holder.Principal, err
}
