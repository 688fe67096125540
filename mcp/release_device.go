package mcp

import (
	"context"
	"errors"
	"fmt"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// releaseArgs name the lease to give back and its device.
type releaseArgs struct {
	Lease  string `json:"lease"`
	Serial string `json:"serial,omitempty"`
}

// Check validates the arguments.
func (a *releaseArgs) Check() error {
	if a.Lease == "" {
		return errors.New("lease is required: the handle acquire_device or select_device returned")
	}
	if len(a.Serial) > maxSerialLen {
		return fmt.Errorf("serial is %d bytes long; at most %d", len(a.Serial), maxSerialLen)
	}
	return checkID(argLease, a.Lease)
}

func toolReleaseDevice() toolDef {
	tool := mcpgo.NewTool("release_device",
		mcpgo.WithDescription("Give a lease back; the next waiter gets the device."),
		destructive(true), mcpgo.WithOutputSchema[tools.MessageResult](),
		mcpgo.WithString(argLease, mcpgo.Required(), mcpgo.MaxLength(128), mcpgo.Description("Lease handle to give back")),
		mcpgo.WithString(argSerial, mcpgo.MaxLength(maxSerialLen),
			mcpgo.Description("Device serial")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a releaseArgs
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuse(ctx, err.Error()), nil
			}
			dev, _, errRes := g.resolveDevice(ctx, deviceArgs{Serial: a.Serial})
			if errRes != nil {
				return errRes, nil
			}
			ans, err := g.farm.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: dev.Serial, Handle: a.Lease,
				By: holderFrom(ctx).String()})
			if err != nil {
				setOutcome(ctx, broker.OutcomeLost)
				return errorResult(fmt.Sprintf("release_device on %s: %v", dev.Serial, err)), nil
			}
			if !ans.OK {
				setOutcome(ctx, broker.OutcomeRefused)
				return errorResult(leaseRefusal("release_device", dev.Serial, ans)), nil
			}
			msg := fmt.Sprintf("Released device %s.", dev.Serial)
			if id := sessionID(ctx); id != "" {
				// The session's default keeps its device but not the dead handle.
				if sd, ok := g.farm.SessionDevice(ctx, id); ok && sd.Lease == a.Lease {
					sd.Lease = ""
					if err := g.farm.SetSessionDevice(ctx, id, sd); err != nil {
						msg += fmt.Sprintf(" The session still names the old lease (%v); pass lease explicitly or call select_device.", err)
					}
				}
			}
			return structuredResult(ctx, tools.MessageResult{Message: msg}), nil
		}
	}}
}
