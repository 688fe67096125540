package nodes

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// LoadCalibration returns what a driver of this node saved for its device serial (an arm
// rig's calibration), or nil when it saved nothing: the node is a device.CalibrationStore.
func (n *Node) LoadCalibration(ctx context.Context, serial string) ([]byte, error) {
	e, err := n.cfg.Stores.Calibrations.Get(ctx, broker.CalibrationKey(n.cfg.ID, serial))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load the calibration of %s from %s: %w", serial, broker.CalibrationBucket, err)
	}
	return e.Value(), nil
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
