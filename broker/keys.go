package broker

// Registry and lease keys carry their node: <node>.<Token(serial)>. NATS permissions are on
// subjects, and a bucket's key is the last part of its subject ($KV.corral_devices.<key>), so a
// node user allowed $KV.corral_devices.<node>.> writes its own entries and no other node's.
// Readers check that an entry's node is its key's (CheckEntryKey): an entry a node wrote about
// another node's device under its own prefix is ignored.

// RegistryKey is the corral_devices key of a node's device.
func RegistryKey(node, serial string) string { return node + "." + Token(serial) }

// LeaseKey is the corral_leases key of a node's device.
func LeaseKey(node, serial string) string { return node + "." + Token(serial) }

// CalibrationKey is the corral_calibrations key of a node's device.
func CalibrationKey(node, serial string) string { return node + "." + Token(serial) }

// HaltKey is the corral_calibrations key of why a node's device (a rig) is halted, kept until
// it is recovered.
func HaltKey(node, serial string) string { return CalibrationKey(node, serial) + ".halt" }

// EpochFloorKey is the corral_calibrations key of a node's epoch floor: every lease epoch the
// node grants after a start is above the floor that start wrote (nodes/epochs.go). Token never
// makes "=epochs" ('=' is followed by two upper-case hex digits), so no device's key is it.
func EpochFloorKey(node string) string { return node + ".=epochs" }

// CheckEntryKey says whether a registry entry may be trusted under key: only when the key is
// the one its node writes it under, or the serial alone: the key of a Corral from before
// node-scoped keys, still read so that in a farm upgraded in place (whose NATS had no
// permissions then) the nodes not yet upgraded keep their devices in use, and their entries can
// be reaped. No node's NATS user may write such a key.
func CheckEntryKey(key string, e DeviceEntry) bool {
	return e.Node != "" && (key == RegistryKey(e.Node, e.Serial) || key == Token(e.Serial))
}

// leaseKeyFor is the lease key that goes with a registry key: a node writes both the same way.
func leaseKeyFor(registryKey string, e DeviceEntry) string {
	if registryKey == Token(e.Serial) {
		return registryKey
	}
	return LeaseKey(e.Node, e.Serial)
}
