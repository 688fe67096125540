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

// mayAbortUnder refuses, under a policy, abort_task by a lease (or lease group) handle that
// no lease or group of the caller's principal has now: another principal's, or one that
// ended, or none at all, in the same words. The node's answer to another principal's handle
// ("no task is currently running", as it leaves devices outside the caller's tags alone)
// was false, and beside a bogus handle's stale_lease it told which handles are held. An
// operator, who may abort anything, and a call without a policy go on as before. A read
// that fails lets the abort go on: a node that does not answer may hold the lease.
func (g *Gateway) mayAbortUnder(ctx context.Context, handle string) *mcpgo.CallToolResult {
	p := g.principal(ctx)
	if g.opts.Policy == nil || p == nil || p.Operator {
		return nil
	}
	owner, err := g.handleOwner(ctx, handle)
	if err != nil || owner == p.Name {
		return nil
	}
	return g.deny(ctx, denial{reason: reasonHolder, rule: ruleOwnLease}, fmt.Sprintf("denied by policy: principal %q may not abort under this lease: "+
		"no lease or lease group it holds now has this handle (rule: %s); list_leases shows its leases", p.Name, ruleOwnLease))
}

// handleOwner names the principal holding a lease or lease group handle now; "" if none does.
// The error is for leases or groups that could not be read.
func (g *Gateway) handleOwner(ctx context.Context, handle string) (string, error) {
	if broker.IsGroupHandle(handle) {
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
	leases, err := g.farm.Leases(ctx)
	if l, ok := leaseWithHandle(leases, handle); ok {
		return l.Holder.Principal, nil
	}
	return "", err
}
