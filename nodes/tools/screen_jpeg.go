package tools

import (
	"context"
	"image"

	"github.com/corral-farm/corral/nodes/device"
)

// ScreenJPEG is the driver's screen as one JPEG at most maxWidth pixels wide, made as the
// screenshot tool makes it (screenImage): encoded while the frame arrives from a driver that
// streams it, the device's own JPEG when it fits, else scaled and encoded once. The console's
// live screens take it (nodes/screens.go): a look, which does not start a device that starts at
// its first use (device.Look). A device's LookCache answers a look at an unchanged screen
// without making its JPEG again.
func ScreenJPEG(ctx context.Context, drv device.Driver, maxWidth int) ([]byte, image.Point, error) {
	return (*LookCache)(nil).ScreenJPEG(ctx, drv, maxWidth)
}
