package mcp

import (
	"context"
	"fmt"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// SelectDeviceResult is select_device's structured result (HttpRunner seed, plus the lease).
type SelectDeviceResult struct {
	Message string    `json:"message" jsonschema:"The device selected"`
	Lease   LeaseInfo `json:"lease" jsonschema:"The lease taken on the device"`
}

func toolSelectDevice(platforms []string) toolDef {
	tool := mcpgo.NewTool("select_device",
		mcpgo.WithDescription("Lease a device and make it the session's default for calls without serial."),
		action(false), mcpgo.WithOutputSchema[SelectDeviceResult](),
		platformParam(platforms), mcpgo.WithString(argSerial, mcpgo.MaxLength(maxSerialLen),
			mcpgo.Description("Device serial; none: the first free one")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a deviceSelector
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			holder := holderFrom(ctx)
			var dev broker.DeviceEntry
			var ans broker.LeaseAnswer
			var err error
			picked := "" // how a device was picked without serial (select_device_first.go)
			if a.Serial == "" {
				if dev, ans, picked, err = g.firstFree(ctx, a.Platform, holder); dev.Serial == "" {
					return g.refuseErr(ctx, err), nil
				}
			} else {
				var errRes *mcpgo.CallToolResult
				if dev, _, errRes = g.resolveDevice(ctx, deviceArgs{Platform: a.Platform, Serial: a.Serial}); errRes != nil {
					return errRes, nil
				}
				ans, err = g.farm.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: dev.Serial, Holder: holder})
			}
			if err != nil {
				setOutcome(ctx, broker.OutcomeLost)
				return errorResult(fmt.Sprintf("select_device on %s%s: %v", dev.Serial, lostWords(err), err)), nil
			}
			session := sessionID(ctx)
			prev, _ := g.selection(ctx) // the session's, or without one the holder's
			if !ans.OK {
				// Selecting again the device this caller selected, and still holds, is not an error.
				if ans.Code == broker.CodeBusy && ans.Lease != nil && ans.Lease.Holder.Is(holder) &&
					prev.Serial == dev.Serial && sameLease(ans.Lease, prev.Lease) {
					l := *ans.Lease
					l.Handle = prev.Lease
					where := "in this session"
					if session == "" {
						where = "by you"
					}
					return structuredResult(ctx, SelectDeviceResult{Lease: leaseInfo(l),
						Message: fmt.Sprintf("Device %s is already selected %s; lease %s.", dev.Serial, where, prev.Lease)}), nil
				}
				setOutcome(ctx, broker.OutcomeRefused)
				return errorResult(leaseRefusal("select_device", dev.Serial, ans, holder)), nil
			}
			if ans.Lease == nil || ans.Lease.Handle == "" {
				setOutcome(ctx, broker.OutcomeFailed)
				return errorResult(fmt.Sprintf("select_device on %s: the node granted no lease handle; try again", dev.Serial)), nil
			}
			l := *ans.Lease
			msg := fmt.Sprintf("Selected device %s (%s %s)%s; lease %s, valid until %s unless renewed by a call (at most until %s).",
				dev.Serial, dev.Platform, dev.Model, picked, l.Handle, l.ExpiresAt.UTC().Format(time.RFC3339), l.MaxUntil.UTC().Format(time.RFC3339))
			chosen := msg
			switch {
			case session == "":
				msg += g.rememberHeldSelection(ctx, dev, l.Handle)
			default:
				err := g.farm.UpdateSessionDevice(ctx, session, func(d *broker.SessionDefault) bool {
					*d = broker.SessionDefault{Serial: dev.Serial, Platform: dev.Platform, Lease: l.Handle, Acquired: d.Acquired, Kept: d.Kept, Client: d.Client}
					return true
				})
				if err != nil {
					g.sessions.selectionUnkept(session, dev.Serial) // for release_device {} to say why it knows no lease
					msg += fmt.Sprintf(" It could not be remembered for this session (%v): pass serial and lease on every call.", err)
				} else {
					g.sessions.selectionUnkept(session, "")
					msg += " Later calls in this session without serial use it."
				}
			}
			if words, cli := cliSelectionWords(ctx, dev.Serial, l.Handle); cli {
				msg = chosen + words // what it remembered serves no later corral call
			}
			msg += g.releasePrevious(ctx, prev, dev.Serial)
			return structuredResult(ctx, SelectDeviceResult{Message: msg, Lease: leaseInfo(l)}), nil
		}
	}}
}
