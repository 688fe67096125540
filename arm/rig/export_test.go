package rig

import (
	"context"
	"log/slog"

	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/nodes/device"
)

// ServeTwinWithoutClipboard is ServeTwin with a rig that has no clipboard helper, as a rigs
// file without clipboard: makes one.
func ServeTwinWithoutClipboard(ctx context.Context, reg device.Registry, tw *twin.Twin, log *slog.Logger) (stop func(), err error) {
	return serveTwin(ctx, reg, tw, log, Config{Model: "iPhone (twin)", Tags: []string{device.SimulatedTag}})
}

// SilentAfter is how long the controller may send no status report before the rig counts it
// silent.
const SilentAfter = silentAfter
