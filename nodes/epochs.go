package nodes

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// Fencing across restarts (SCHEDULER.md rule 7). A device's lease epoch grows with every grant,
// and the registry, where a restarted node reads it back, is written at most every
// registryEvery: a node that crashed just after a grant would read the epoch before it and hand
// the same number out again, to another holder. So each start writes, before the node serves
// anything, a floor above every epoch a previous run can have granted, and its devices count
// on from there. The floor is the next multiple of epochStride above what the previous start
// wrote and what the registry holds: a run whose last registry writes were lost granted far
// fewer than a million epochs since them, and the millions of an epoch count the node's
// restarts. A node's first start (no floor written, no entry) starts from 0, so a new farm's
// epochs are 1, 2, 3.
const epochStride = 1_000_000

// raiseEpochFloor reads the node's epoch floor and the highest epoch of its registry entries
// (known), writes the new floor, and returns it; it fails when the write fails, as the node
// must not grant without it.
func raiseEpochFloor(ctx context.Context, kv jetstream.KeyValue, node string, known map[string]broker.DeviceEntry) (uint64, error) {
	key := broker.EpochFloorKey(node)
	var floor uint64
	written := false
	switch e, err := kv.Get(ctx, key); {
	case errors.Is(err, jetstream.ErrKeyNotFound):
	case err != nil:
		return 0, fmt.Errorf("read the epoch floor %s in %s: %w", key, broker.CalibrationBucket, err)
	default:
		if floor, err = strconv.ParseUint(string(e.Value()), 10, 64); err != nil {
			return 0, fmt.Errorf("epoch floor %s in %s is %q, not a number: %w; delete the key to start over", key, broker.CalibrationBucket, e.Value(), err)
		}
		written = true
	}
	highest := floor
	for _, e := range known {
		highest = max(highest, e.Epoch)
	}
	if written || len(known) > 0 {
		floor = (highest/epochStride + 1) * epochStride
	}
	if _, err := kv.Put(ctx, key, epochFloorValue(floor)); err != nil {
		hint := ""
		if strings.Contains(err.Error(), "Permissions Violation") {
			hint = fmt.Sprintf(" (may this node's NATS user write $KV.%s.%s.>?)", broker.CalibrationBucket, node)
		}
		return 0, fmt.Errorf("write the epoch floor %s in %s: %w%s", key, broker.CalibrationBucket, broker.ExplainStoreLimit(broker.CalibrationBucket, err), hint)
	}
	return floor, nil
}

// epochFloorValue is floor as the bucket keeps it: 20 digits, as many as any uint64 has, so
// that every later floor is an update of the same size, which a full bucket still takes.
func epochFloorValue(floor uint64) []byte {
	return fmt.Appendf(nil, "%020d", floor)
}
