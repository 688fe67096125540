package nodes

import (
	"context"
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// LoadCalibration returns what a driver saved for its device serial (an arm rig's calibration),
// or nil when it saved nothing: the node is a device.CalibrationStore. A rig is one machine
// whatever node id serves it, so the latest saved under any node id is reused (rig_anynode.go),
// with a warning naming that node: the driver checks that it is of this rig and still fits.
func (n *Node) LoadCalibration(ctx context.Context, serial string) ([]byte, error) {
	kept, err := n.loadRigKey(ctx, serial, "calibration", broker.CalibrationKey("*", serial), broker.CalibrationKey(n.cfg.ID, serial))
	if err != nil {
		return nil, fmt.Errorf("load the calibration of %s from %s: %w", serial, broker.CalibrationBucket, err)
	}
	if kept.value != nil && kept.node != n.cfg.ID {
		n.cfg.Log.Warn("rig calibration reused from another node id: the rig is the same machine; arm_calibrate if it moved",
			"serial", serial, "calibrated_under", kept.node)
	}
	return kept.value, nil
}

// SaveCalibration keeps data for serial in the farm's KV, where the node finds it again
// after a restart.
func (n *Node) SaveCalibration(ctx context.Context, serial string, data []byte) error {
	if _, err := n.cfg.Stores.Calibrations.Put(ctx, broker.CalibrationKey(n.cfg.ID, serial), data); err != nil {
		return fmt.Errorf("save the calibration of %s in %s: %w (may this node's NATS user write $KV.%s.%s.>?)",
			serial, broker.CalibrationBucket, err, broker.CalibrationBucket, n.cfg.ID)
	}
	return nil
}
