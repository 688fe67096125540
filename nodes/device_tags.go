package nodes

import (
	"fmt"
	"slices"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// A node's device tags (corral node --device-tags) go to every device it serves, of every
// platform, after its driver's own (sim, web): an operator names the pool a node's devices are
// in, and a policy gives principals that pool by tag (docs/auth.md).

// Bounds of a node's device tags. A tag has the length a policy's tags have (1 to 64 bytes):
// a longer one no principal could name.
const (
	MaxDeviceTags   = 16
	maxDeviceTagLen = 64
)

// CheckDeviceTags refuses device tags a node cannot give: empty or too long ones, too many,
// and the drivers' own tags. A restarted node removes the entries of devices tagged sim or
// (browsers) web instead of showing them offline, so a real device given one would vanish
// from the registry at each restart.
func CheckDeviceTags(tags []string) error {
	if len(tags) > MaxDeviceTags {
		return fmt.Errorf("%d tags: give at most %d", len(tags), MaxDeviceTags)
	}
	for _, t := range tags {
		switch {
		case t == "" || len(t) > maxDeviceTagLen:
			return fmt.Errorf("tag %q: each tag must be 1 to %d bytes long, as a policy's tags", t, maxDeviceTagLen)
		case t == device.SimulatedTag || t == device.NodeBrowserTag:
			return fmt.Errorf("tag %q is the drivers' own (simulated devices carry sim, browsers the node makes carry web) and "+
				"cannot be given; name the pool otherwise, e.g. pool-a", t)
		}
	}
	return nil
}

// withNodeTags is a driver's tags followed by the node's, each once. The driver's are copied,
// not changed.
func withNodeTags(driver, node []string) []string {
	if len(node) == 0 {
		return driver
	}
	out := slices.Clone(driver)
	for _, t := range node {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// withTagsNow is e, the entry of a device the node had before it restarted, with the tags the
// node gives now: the drivers' own it carries (sim, web), then the node's current tags; and
// whether they changed. The entry stays shown offline until the device is attached again: with
// the tags of the node's last run, a policy would still give (and list) it to the principals of
// the pool it left, and not to those of the pool it is in. The drivers give no tag but their
// own (CheckDeviceTags refuses those to a node), so every other tag was the node's.
func withTagsNow(e broker.DeviceEntry, node []string) (broker.DeviceEntry, bool) {
	var tags []string
	for _, t := range e.Tags {
		if (t == device.SimulatedTag || t == device.NodeBrowserTag) && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	tags = withNodeTags(tags, node)
	if slices.Equal(tags, e.Tags) {
		return e, false
	}
	e.Tags = tags
	return e, true
}
