package mcp

import (
	"context"
	"fmt"
	"slices"

	"github.com/corral-farm/corral/broker"
)

// HttpRunner's select_device with no serial (or serial "") takes the first device of the
// platform its driver finds (GetOrCreateXTDriver with an empty serial: uixt picks the first of
// the platform's devices). Corral picks the first free device the caller may use, of platform if
// given, in the order list_available_devices shows them (by serial, as acquire_device tries
// them), and says which it took. A caller's own selection of that platform is kept while no one
// else holds its device: asking again does not move it to another device.

// firstFree selects a device for select_device without a serial: the caller's selection if it
// is of platform, else the first free device of platform it may use that the node grants. It
// returns the device, the node's answer, and how the device was chosen, for the answer's
// message; or a refusal (its code: codeOf).
func (g *Gateway) firstFree(ctx context.Context, platform string, holder broker.Holder) (broker.DeviceEntry, broker.LeaseAnswer, string, error) {
	if prev, ok := g.selection(ctx); ok {
		if d, known := g.farm.Device(prev.Serial); known && g.mayUse(ctx, d) && (platform == "" || d.Platform == platform) {
			ans, err := g.farm.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: d.Serial, Holder: holder})
			if err != nil || ans.OK || ans.Lease != nil && ans.Lease.Holder.Is(holder) {
				return d, ans, " (no serial given: the device you selected before)", err
			}
			// Another holder has it since the selection's lease ended: pick as if none.
		}
	}
	all := slices.DeleteFunc(g.farm.Devices(), func(d broker.DeviceEntry) bool { return !g.mayUse(ctx, d) }) // sorted by serial
	of := slices.DeleteFunc(slices.Clone(all), func(d broker.DeviceEntry) bool { return platform != "" && d.Platform != platform })
	free := slices.DeleteFunc(slices.Clone(of), func(d broker.DeviceEntry) bool { return d.State != broker.StateOnline })
	what := "device"
	if platform != "" {
		what = platform + " device"
	}
	var taken []string // granted to another caller between the registry's read and our ask
	for _, d := range free[:min(len(free), maxAcquireTries)] {
		ans, err := g.farm.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: d.Serial, Holder: holder})
		if err != nil || ans.OK || ans.Code == broker.CodeQuota { // the quota is the caller's, whatever the device
			return d, ans, fmt.Sprintf(" (no serial given: the first free %s, as list_available_devices lists them)", what), err
		}
		taken = append(taken, d.Serial)
	}
	switch {
	case len(of) == 0 && platform != "":
		if err := g.checkPlatform(platform); err != nil {
			return broker.DeviceEntry{}, broker.LeaseAnswer{}, "", err
		}
		return broker.DeviceEntry{}, broker.LeaseAnswer{}, "", withCode(broker.CodeUnknownDevice, fmt.Errorf("serial not given, and no %s is in the farm: it has %s; pass serial", what, g.usableSummary(ctx, all)))
	case len(of) == 0:
		return broker.DeviceEntry{}, broker.LeaseAnswer{}, "", withCode(broker.CodeUnknownDevice, fmt.Errorf("serial not given, and the farm has %s", g.usableSummary(ctx, all)))
	}
	msg := fmt.Sprintf("serial not given, and no %s is free: %s", what, whyUnavailable(of))
	if len(taken) > 0 {
		msg += fmt.Sprintf(" (%d were taken by others as this call asked)", len(taken))
	}
	return broker.DeviceEntry{}, broker.LeaseAnswer{}, "", withCode(unavailableCode(of), fmt.Errorf("%s; call list_available_devices to see them, then select_device with the serial of one, or acquire_device with wait_seconds to wait for one", msg))
}
