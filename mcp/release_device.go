package mcp

import (
	"context"
	"fmt"
	"slices"

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

// Check validates the arguments. Both may be left out in a session that selected a device:
// its lease is the default.
func (a *releaseArgs) Check() error {
	if len(a.Serial) > maxSerialLen {
		return fmt.Errorf("serial is %d bytes long; at most %d", len(a.Serial), maxSerialLen)
	}
	if a.Lease == "" {
		return nil
	}
	return checkID(argLease, a.Lease)
}

func toolReleaseDevice() toolDef {
	tool := mcpgo.NewTool(releaseTool,
		mcpgo.WithDescription("Give a lease back; the next waiter gets the device. A group's lease gives back all its devices."),
		destructive(true), mcpgo.WithOutputSchema[tools.MessageResult](),
		mcpgo.WithString(argLease, mcpgo.MaxLength(128), mcpgo.Description("Lease handle to give back; default: the session's")),
		mcpgo.WithString(argSerial, mcpgo.MaxLength(maxSerialLen),
			mcpgo.Description("Device serial")),
	)
	return toolDef{tool: tool, handler: func(g *Gateway) mcpserver.ToolHandlerFunc {
		return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			var a releaseArgs
			var errRes *mcpgo.CallToolResult
			if err := decodeArgs(tool, req, &a); err != nil {
				return g.refuseErr(ctx, err), nil
			}
			fromSelection := a.Lease == ""
			if a.Lease == "" { // the one lease the session holds, if it holds one
				if a.Lease, errRes = g.sessionRelease(ctx, a.Serial); errRes != nil {
					return errRes, nil
				}
			}
			if broker.IsGroupHandle(a.Lease) {
				return g.releaseGroup(ctx, a.Lease, a.Serial), nil
			}
			serial, lease, errRes := g.releaseTarget(ctx, a)
			if errRes != nil {
				return errRes, nil
			}
			dev, errRes := g.releasedDevice(ctx, serial) // its own lease, even of a device its policy no longer allows
			if errRes != nil {
				return errRes, nil
			}
			a.Lease = lease
			ans, err := g.farm.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: dev.Serial, Handle: a.Lease,
				By: holderFrom(ctx).String()})
			if err != nil {
				setOutcome(ctx, broker.OutcomeLost)
				return errorResult(fmt.Sprintf("release_device on %s%s: %v", dev.Serial, lostWords(err), err)), nil
			}
			if !ans.OK {
				setOutcome(ctx, broker.OutcomeRefused)
				if fromSelection && ans.Code == broker.CodeStaleLease { // the node speaks of "the lease you passed"
					if msg := g.endedSelectionRelease(ctx, dev, a.Lease, ans); msg != "" {
						return errorResult(msg), nil
					}
				}
				return errorResult(leaseRefusal("release_device", dev.Serial, ans, holderFrom(ctx))), nil
			}
			if id := sessionID(ctx); id != "" && g.sessions.unkeptSelection(id) == dev.Serial {
				g.sessions.selectionUnkept(id, "")
			}
			msg := fmt.Sprintf("Released device %s.", dev.Serial) + g.forgetSessionLease(ctx, a.Lease)
			return structuredResult(ctx, tools.MessageResult{Message: msg}), nil
		}
	}}
}

// forgetSessionLease drops a released handle from the session's default, which keeps its
// device, from the leases acquire_device took in it and from earlier selections kept; it returns what to add to the answer
// if that failed.
func (g *Gateway) forgetSessionLease(ctx context.Context, lease string) string {
	id := selectionKey(ctx) // without a session, the holder's selection (select_device_held.go)
	err := g.farm.UpdateSessionDevice(ctx, id, func(sd *broker.SessionDefault) bool {
		if sd.Lease != lease && !slices.Contains(sd.Acquired, lease) && !slices.Contains(sd.Kept, lease) {
			return false
		}
		if sd.Lease == lease {
			sd.Lease = ""
		}
		sd.Acquired = slices.DeleteFunc(sd.Acquired, func(h string) bool { return h == lease })
		sd.Kept = slices.DeleteFunc(sd.Kept, func(h string) bool { return h == lease })
		return true
	})
	if err != nil {
		return fmt.Sprintf(" The session still names the old lease (%v); pass lease explicitly or call select_device.", err)
	}
	return ""
}

// releaseTarget finds the device and the lease release_device gives back: the session's
// selected device and its lease for what the call leaves out, and the device of a lease given
// without serial from the farm's leases. The handle is never written into an answer.
func (g *Gateway) releaseTarget(ctx context.Context, a releaseArgs) (serial, lease string, errRes *mcpgo.CallToolResult) {
	serial, lease = a.Serial, a.Lease
	if sd, ok := g.selection(ctx); ok { // the session's, or without one the holder's
		switch {
		case lease == "" && (serial == "" || serial == sd.Serial):
			serial, lease = sd.Serial, sd.Lease
		case serial == "" && lease == sd.Lease:
			serial = sd.Serial
		}
	}
	if lease == "" {
		code, msg := broker.CodeBadInput, "lease is required: the handle acquire_device or select_device returned (in a session, select_device makes its lease the default)"
		unkept := g.sessions.unkeptSelection(sessionID(ctx))
		switch {
		case unkept != "" && (serial == "" || serial == unkept):
			msg = unkeptLeaseRefusal(unkept)
		case serial != "":
			code, msg = g.noLeaseOf(ctx, serial)
		}
		return "", "", g.refuse(ctx, code, msg)
	}
	if serial != "" {
		return serial, lease, nil
	}
	leases, err := g.farm.Leases(ctx)
	hidden := "" // the device of another principal's lease the caller is answered as for a bogus handle
	if l, ok := leaseWithHandle(leases, lease); ok {
		if !g.leaseHidden(ctx, l.Serial, l.Holder.Principal) {
			return l.Serial, lease, nil
		}
		hidden = l.Serial
	}
	// No node holds it (or one that does not answer may): its grant names its device.
	granted, grantsErr := g.grantedDevice(ctx, lease)
	if granted.Serial != "" {
		if !g.leaseHidden(ctx, granted.Serial, broker.PrincipalOf(granted.Holder)) {
			return granted.Serial, lease, nil
		}
		hidden = granted.Serial
	}
	if hidden != "" {
		g.countHidden(ctx, hidden)
	}
	if err != nil { // the farm's leases could not be read: no lease is known to have ended
		return "", "", g.refuse(ctx, codeUnavailable, fmt.Sprintf("the lease's device was not found: the farm's leases could not be read (%v); try again, or pass serial with the lease", err))
	}
	return "", "", g.refuse(ctx, broker.CodeStaleLease, unknownLeaseText(grantsErr))
}

// holdsWho names the caller in release_device's answers: its session, or without one the
// holder (a connection of the revision without sessions has none to speak of).
func holdsWho(ctx context.Context) string {
	if sessionID(ctx) != "" {
		return "this session holds"
	}
	return fmt.Sprintf("you (%s, a connection without protocol session) hold", holderFrom(ctx))
}
