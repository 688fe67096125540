package nodes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// LoadHalt returns why a rig of this node was halted when its driver last said so, "" when it
// was not: the node is a device.HaltStore.
func (n *Node) LoadHalt(ctx context.Context, serial string) (string, error) {
	e, err := n.cfg.Stores.Calibrations.Get(ctx, broker.HaltKey(n.cfg.ID, serial))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("load the halt of %s from %s: %w", serial, broker.CalibrationBucket, err)
	}
	return string(e.Value()), nil
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
