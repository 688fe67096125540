package android

import (
	"maps"

	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// simSerialPrefix begins the serials --sim-android's devices show, as ios-sim- the --sim-ios
// iPhones' and sim- the --sim phones'.
const simSerialPrefix = "android-sim"

// simSerials names the devices of farm as the registry shows them, by their adb serials:
// android-sim-<node>-01 and on, padded to the width of the count (sim.Numbered). Their adb
// serials are 127.0.0.1:<a free port>, another at each start: a user's saved serial (a script,
// a --passcodes entry) stopped working at each restart of the node. The names are the same for
// the same node and count, and the node's id keeps them apart from other nodes'. A registry
// that is no node (has no ID) gets android-sim-01 and on.
func simSerials(reg device.Registry, farm *adbsim.Farm) map[string]string {
	prefix := simSerialPrefix
	if n, ok := reg.(interface{ ID() string }); ok && n.ID() != "" {
		prefix += "-" + n.ID()
	}
	devices := farm.Devices()
	names := make(map[string]string, len(devices))
	for i, d := range devices {
		names[d.Serial()] = sim.Numbered(prefix, i+1, len(devices))
	}
	return names
}

// WithSerialNames shows the devices whose adb serials it lists under these names: their
// drivers' Info carries the name as Serial (and the adb serial as Extra's adb_serial, for adb
// -s), and Attach adds and removes them under it. The driver still talks to the adb server by
// the adb serial.
func WithSerialNames(byAdbSerial map[string]string) AttachOption {
	names := maps.Clone(byAdbSerial)
	return attachFunc(func(c *attachConfig) {
		c.names = names
		c.driver = append(c.driver, func(d *Driver) { d.name = names[d.serial] })
	})
}

// namedRegistry removes the devices it has names for under those names, as their drivers
// were added (their Info's Serial).
type namedRegistry struct {
	device.Registry
	names map[string]string
}

func (r namedRegistry) RemoveDevice(serial, reason string) {
	if name, ok := r.names[serial]; ok {
		serial = name
	}
	r.Registry.RemoveDevice(serial, reason)
}
