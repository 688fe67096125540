package mcp

import (
	"context"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// ruleOwnGroup is the rule that hides, from a device tool given a group's handle and a device
// not in the group, another principal's group that holds a device outside the caller's rule.
const ruleOwnGroup = "a lease group's handle with a device not in it names the group only to its principal or a caller that may use all its devices"

// notInGroup refuses a device tool's serial that is not in the group its lease handle names.
// The refusal names the group and its devices, which another principal's group with a device
// outside the caller's rule (leaseHidden, member by member, as mayReleaseGroup does) must not:
// to such a caller it is answered as a handle no group has, word for word, counted and logged
// as reason=holder. The group's own principal, an operator, a caller that may use every
// member (list_leases shows it the group) and a call without a policy are told why.
func (g *Gateway) notInGroup(ctx context.Context, serial string, grp broker.LeaseGroup) *mcpgo.CallToolResult {
	for _, m := range grp.Members {
		if g.leaseHidden(ctx, m.Serial, grp.Holder.Principal) {
			g.metrics.deny(reasonHolder)
			g.logDenial(ctx, denial{reason: reasonHolder, serial: m.Serial, rule: ruleOwnGroup})
			return g.noGroup(ctx, "lease")
		}
	}
	return g.refuseBadInput(ctx, fmt.Sprintf("device %s is not in lease group %s (its devices: %s): pass one of their serials",
		serial, grp.ID, strings.Join(grp.Serials(), ", ")))
}
