package mcp

import (
	"context"
)

// ruleOwnRelease is the rule that hides, from release_device by a handle alone, another
// principal's lease of a device outside the caller's rule.
const ruleOwnRelease = "release_device by lease finds only the caller's own leases of devices outside its rule"

// leaseHidden reports whether release_device by a handle alone must answer the lease it
// found, principal's on device serial (held now, or granted once), as it answers a handle
// no lease has: under a policy, another principal's lease of a device outside the caller's
// rule. Its refusal ("may not use device n1-p1") told the caller that the handle was live
// and which device it held, where a bogus handle got stale_lease. An operator, the caller's
// own principal (its lease of a device its policy no longer allows: release_own.go) and a
// call without a policy go on as before.
func (g *Gateway) leaseHidden(ctx context.Context, serial, principal string) bool {
	p := g.principal(ctx)
	return g.opts.Policy != nil && p != nil && !p.Operator && !g.isCaller(ctx, principal) && !g.mayUseSerial(ctx, serial)
}

// countHidden counts and logs, as abort_task's refusal under another's lease is, a
// release_device that leaseHidden answered as a bogus handle on device serial: the caller
// sees no denial, the operator does (never the handle).
func (g *Gateway) countHidden(ctx context.Context, serial string) {
	g.metrics.deny(reasonHolder)
	g.logDenial(ctx, denial{reason: reasonHolder, serial: serial, rule: ruleOwnRelease})
}
