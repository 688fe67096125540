package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// usableSummary is farmSummary of devs, the devices the caller may use: when its rule's tags
// leave it none, it says so rather than "no devices at all (is a node running?)", which was
// false of a farm with devices, and without naming any other device.
func (g *Gateway) usableSummary(ctx context.Context, devs []broker.DeviceEntry) string {
	if p := g.principal(ctx); len(devs) == 0 && g.opts.Policy != nil && p != nil && len(p.Tags) > 0 {
		return fmt.Sprintf("no device your token may use (its rule's tags: %s)", strings.Join(p.Tags, ", "))
	}
	return farmSummary(devs)
}
