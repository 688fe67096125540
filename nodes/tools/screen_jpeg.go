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
// its first use (device.Look).
func ScreenJPEG(ctx context.Context, drv device.Driver, maxWidth int) ([]byte, image.Point, error) {
	out, err := screenImage(device.Look(ctx), &Task{Driver: drv}, ImageArgs{MaxWidth: maxWidth})
	if err != nil {
		return nil, image.Point{}, err
	}
	r := out.Data.(ScreenshotResult)
	if out.JPEG == nil {
		out.JPEG, err = EncodeJPEG(out.Image, MaxImageBytes)
	}
	return out.JPEG, image.Pt(r.Width, r.Height), err
}
