package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// noLeaseOf refuses release_device of serial without a lease when the caller holds none it
// remembers there. It says whose lease the device has when that is the caller's own, one it
// does not remember, or another session's of the caller's principal and client (a second
// corral call: each process is a caller of its own), in the busy refusal's words; then the
// devices the caller does hold and what release_device {} would give back. What to pass is
// said once. code is the refusal's: bad_input, or unknown_device for a serial no device has.
func (g *Gateway) noLeaseOf(ctx context.Context, serial string) (code, msg string) {
	if _, ok := g.farm.Device(serial); !ok {
		return broker.CodeUnknownDevice, unknownDeviceText(serial)
	}
	unkept := "without a session a lease acquire_device took is not remembered"
	if sessionID(ctx) != "" {
		unkept = "this session does not remember it"
	}
	caller := holderFrom(ctx)
	var onIt *broker.Holder // the holder of serial's lease, if the farm lists one
	var mine []string       // the caller's other devices
	if leases, err := g.farm.Leases(ctx); err == nil {
		for _, l := range leases {
			switch {
			case l.Serial == serial:
				onIt = &l.Holder
			case l.Holder.Is(caller) && !slices.Contains(mine, l.Serial):
				mine = append(mine, l.Serial)
			}
		}
	}
	yours := onIt != nil && onIt.Is(caller)
	switch {
	case yours:
		msg = fmt.Sprintf("lease is required: %s a lease of %s, but %s: pass its handle as lease", holdsWho(ctx), serial, unkept)
	case onIt != nil && otherSessionText(*onIt, caller) != "":
		msg = fmt.Sprintf("lease is required: %s is held by %s.%s", serial, onIt, otherSessionText(*onIt, caller))
	default:
		msg = fmt.Sprintf("lease is required: %s no lease of %s (released, expired, or another holder's; %s): "+
			"pass the handle acquire_device or select_device returned", holdsWho(ctx), serial, unkept)
	}
	if len(mine) == 0 {
		return broker.CodeBadInput, msg
	}
	slices.Sort(mine)
	also, end := "; you ", ""
	if strings.HasSuffix(msg, ".") { // another session's: a sentence of its own
		also, end = " You ", "."
	}
	if yours {
		also += "also "
	}
	return broker.CodeBadInput, msg + also + "hold leases of " + strings.Join(mine, ", ") + g.emptyReleaseGives(ctx) + end
}

// emptyReleaseGives says which of the caller's leases release_device {} would give back.
func (g *Gateway) emptyReleaseGives(ctx context.Context) string {
	sd, _ := g.farm.SessionDevice(ctx, selectionKey(ctx))
	switch known := g.sessionLeases(ctx, sd); len(known) {
	case 0:
		return " (release_device {} gives back none of them: pass their lease)"
	case 1:
		return " (release_device {} gives back " + known[0].String() + ")"
	default:
		return fmt.Sprintf(" (release_device {} refuses, naming the %d it knows: pass serial)", len(known))
	}
}
