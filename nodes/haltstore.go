package nodes

import (
	"context"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// LoadHalt returns why rig serial was halted when its driver last said so, "" when it was not
// or was recovered since: the node is a device.HaltStore. The halt may have been kept under
// another node id (rig_anynode.go); the reason then says which, once, however many ids it
// moved through. An emergency_stop kept by an older node, which said neither who nor when,
// reads as one by "unknown" at an "unknown time" (device.Stop).
func (n *Node) LoadHalt(ctx context.Context, serial string) (string, error) {
	kept, err := n.loadRigKey(ctx, serial, "halt", broker.HaltKey("*", serial), broker.HaltKey(n.cfg.ID, serial))
	if err != nil {
		return "", fmt.Errorf("load the halt of %s from %s: %w", serial, broker.CalibrationBucket, err)
	}
	if kept.value == nil {
		return "", nil
	}
	why, under := haltedUnder(string(kept.value))
	if why == device.HaltReasonStop {
		why = device.Stop{}.Reason()
	}
	if under == "" {
		under = kept.node
	}
	if under != n.cfg.ID {
		why += haltedUnderWords + under + ")"
		n.cfg.Log.Warn("rig was halted under another node id: it comes back halted here", "serial", serial, "halted_under", under)
	}
	return why, nil
}

// haltedUnderWords start what LoadHalt adds to a halt kept under another node id.
const haltedUnderWords = " (halted under node "

// haltedUnder splits a kept halt's reason from the node id it says it was halted under ("" if
// none): the rig's driver keeps the reason it was told, those words included, under its new
// node id, so a halt that moves again must not say them twice.
func haltedUnder(why string) (reason, node string) {
	i := strings.LastIndex(why, haltedUnderWords)
	if i < 0 || !strings.HasSuffix(why, ")") {
		return why, ""
	}
	node = why[i+len(haltedUnderWords) : len(why)-1]
	if node == "" || strings.ContainsAny(node, " ()") {
		return why, ""
	}
	return why[:i], node
}

// SaveHalt keeps why serial is halted in the farm's KV, where the node finds it after a
// restart; "" forgets it. The reason is cut as the device's entry cuts it (entry_bounds.go):
// corral_calibrations takes values of at most 64KiB, a driver's reason may carry a tool's whole
// output, and the halt restored after a restart reads as the one shown before it.
func (n *Node) SaveHalt(ctx context.Context, serial, reason string) error {
	key := broker.HaltKey(n.cfg.ID, serial)
	var err error
	if reason == "" {
		err = n.cfg.Stores.Calibrations.Delete(ctx, key)
	} else {
		_, err = n.cfg.Stores.Calibrations.Put(ctx, key, []byte(n.bounds.reasonText(serial, reason)))
	}
	if err != nil {
		hint := "" // the bucket's bounds say themselves (broker.ExplainStoreLimit)
		if strings.Contains(err.Error(), "Permissions Violation") {
			hint = fmt.Sprintf(" (may this node's NATS user write $KV.%s.%s.>?)", broker.CalibrationBucket, n.cfg.ID)
		}
		return fmt.Errorf("keep the halt of %s in %s: %w%s", serial, broker.CalibrationBucket, err, hint)
	}
	return nil
}
