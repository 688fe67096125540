package nodes

import (
	"context"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// LoadHalt returns why rig serial was halted when its driver last said so, "" when it was not
// or was recovered since: the node is a device.HaltStore. The halt may have been kept under
// another node id (rig_anynode.go); the reason then says which.
func (n *Node) LoadHalt(ctx context.Context, serial string) (string, error) {
	kept, err := n.loadRigKey(ctx, serial, "halt", broker.HaltKey("*", serial), broker.HaltKey(n.cfg.ID, serial))
	if err != nil {
		return "", fmt.Errorf("load the halt of %s from %s: %w", serial, broker.CalibrationBucket, err)
	}
	if kept.value == nil {
		return "", nil
	}
	why := string(kept.value)
	if kept.node != n.cfg.ID {
		why += " (halted under node " + kept.node + ")"
		n.cfg.Log.Warn("rig was halted under another node id: it comes back halted here", "serial", serial, "halted_under", kept.node)
	}
	return why, nil
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
