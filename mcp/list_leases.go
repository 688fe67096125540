package mcp

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// LeasesResult is list_leases' structured result.
type LeasesResult struct {
	Leases []LeaseInfo `json:"leases" jsonschema:"Every explicit lease on the devices the caller may use, without handles"`
}

func toolListLeases() toolDef {
	tool := mcpgo.NewTool("list_leases",
		mcpgo.WithDescription("List the leases of the farm: device, holder, epoch, expiry, hard maximum and queue length (handles are secret to their holders)."),
		readOnly(), mcpgo.WithOutputSchema[LeasesResult]())
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if err := decodeArgs(tool, req, &tools.NoArgs{}); err != nil {
				return g.refuse(ctx, err.Error()), nil
			}
			leases, err := g.farm.Leases(ctx)
			if err != nil {
				setOutcome(ctx, broker.OutcomeLost)
				return errorResult(fmt.Sprintf("list_leases: %v", err)), nil
			}
			slices.SortFunc(leases, func(x, y broker.Lease) int { return cmp.Compare(x.Serial, y.Serial) })
			out := LeasesResult{Leases: make([]LeaseInfo, 0, len(leases))}
			for _, l := range leases {
				if !g.mayUseSerial(ctx, l.Serial) {
					continue // another principal's devices
				}
				out.Leases = append(out.Leases, leaseInfo(l.Public()))
			}
			return structuredResult(ctx, out), nil
		}
	}}
}
