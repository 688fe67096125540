package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// maxNamedDevices bounds the devices an unsupported refusal names.
const maxNamedDevices = 8

// unsupportedText is what the gateway puts before a node's refusal of tool on dev as
// unsupported or unconfigured: the node knows what its driver, its configuration or the device
// lacks, the gateway which devices of the farm can do it instead. Which ones depends on why dev
// cannot:
//   - its platform's drivers lack the tool: devices of the platforms that have it;
//   - its node lacks configuration (code unconfigured: no model for the AI tools): no device
//     of that node can, whatever its platform, so the cause and what to set come first;
//   - its node lacks configuration for this device only (unconfigured and ownSetup: no
//     passcode for it): the cause and what to set come first, then the other devices that have
//     the tool, on any node, of any platform; a node too old to mark it gets the words above;
//   - the device lacks it by how it was built or set up (ownSetup: an arm rig without a
//     clipboard helper): devices of the other platforms that have the tool, and those of its
//     own platform, which can if theirs are set up for it (another rig with a helper);
//   - its platform has the tool but its driver refused these arguments (BACK on an iPhone):
//     no device of that platform can either, as they share the driver;
//   - a sequence: the devices whose platforms have every one of its steps' tools.
func (g *Gateway) unsupportedText(ctx context.Context, tool string, args json.RawMessage, dev broker.DeviceEntry, code, nodeErr string, ownSetup bool) string {
	can := g.ablePlatforms(tool, args)
	config := code == broker.CodeUnconfigured
	deviceConfig := config && ownSetup // passcodes go by serial: the node's other devices may unlock
	// A sequence's platforms are its steps': the words on platforms lacking a tool do not fit.
	if !config && tool != toolSequence && !slices.Contains(can, dev.Platform) {
		return tools.UnsupportedMessage(g.opts.Platforms, tool, dev, g.farm.Devices()) + ". " + nodeErr
	}
	others := func(d broker.DeviceEntry) bool { return d.Platform != dev.Platform }
	what := fmt.Sprintf("%s is not supported by the driver of %s (%s) as asked, nor by other %s devices", tool, dev.Serial, dev.Platform, dev.Platform)
	switch {
	case deviceConfig:
		others = func(broker.DeviceEntry) bool { return true }
		what = fmt.Sprintf("%s cannot run on %s: its node %s has no configuration for this device (not for its platform or node)", tool, dev.Serial, dev.Node)
	case config:
		others = func(d broker.DeviceEntry) bool { return d.Node != dev.Node }
		what = fmt.Sprintf("%s cannot run on %s: its node %s lacks configuration, not the device, so none of that node's devices can", tool, dev.Serial, dev.Node)
	case ownSetup:
		what = fmt.Sprintf("%s cannot run on %s (%s) as this device is set up: it lacks what the call needs, not its platform", tool, dev.Serial, dev.Platform)
	}
	var able, alike []broker.DeviceEntry
	for _, d := range g.farm.Devices() {
		if d.Serial == dev.Serial || d.State == broker.StateOffline || !slices.Contains(can, d.Platform) || !g.mayUse(ctx, d) {
			continue
		}
		switch {
		case others(d):
			able = append(able, d)
		case ownSetup:
			alike = append(alike, d)
		}
	}
	who := "; no other device in this farm can"
	switch {
	case deviceConfig && len(able) > 0:
		who = "; other devices that can, if their node is configured for them: " + deviceNames(able)
	case config && len(able) > 0:
		who = "; devices on other nodes, which can if their node is configured: " + deviceNames(able)
	case len(able) > 0:
		who = "; devices that can: " + deviceNames(able)
	}
	if len(alike) > 0 {
		if len(able) == 0 {
			who = ""
		}
		who += fmt.Sprintf("; other %s devices, which can if theirs are set up for it: %s", dev.Platform, deviceNames(alike))
	}
	if config {
		return what + ": " + nodeErr + who
	}
	if !ownSetup { // the platform has the tool, its driver not these arguments: the node says why (iOS has no BACK)
		return nodeErr + who
	}
	return what + who + ". " + nodeErr
}

// deviceNames names devices briefly, free ones first: "n1-p2 (android, online), …".
func deviceNames(devs []broker.DeviceEntry) string {
	devs = slices.SortedFunc(slices.Values(devs), func(x, y broker.DeviceEntry) int {
		return cmp.Or(cmp.Compare(stateRankOf(x.State), stateRankOf(y.State)), cmp.Compare(x.Serial, y.Serial))
	})
	parts := make([]string, 0, maxNamedDevices+1)
	for _, d := range devs[:min(len(devs), maxNamedDevices)] {
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", d.Serial, d.Platform, d.State))
	}
	if len(devs) > maxNamedDevices {
		parts = append(parts, fmt.Sprintf("and %d more (list_available_devices)", len(devs)-maxNamedDevices))
	}
	return strings.Join(parts, ", ")
}

// stateRankOf orders states for naming devices: free, leased, busy, then the rest.
func stateRankOf(state string) int {
	if r, ok := stateRank[state]; ok {
		return r
	}
	return len(stateRank)
}
