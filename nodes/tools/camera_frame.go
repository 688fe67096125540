package tools

import (
	"context"

	"github.com/corral-farm/corral/nodes/device"
)

// cameraFrameMessage is what an arm rig's screenshot says of itself: PhysiClaw's screenshot
// is the phone's own, pixel-exact; a rig has no link to its phone, so its screenshot is what
// its camera sees, as peek's is (docs/arm.md).
const cameraFrameMessage = "the overhead camera's frame rectified to the screen, not the phone's own screenshot " +
	"(an arm rig has no link to the phone); peek lists its elements"

// sayCameraFrame makes run's answer on a camera-driven device (one that calibrates its camera
// to the screen: an arm rig) say that its image is the camera's frame.
func sayCameraFrame(run func(context.Context, *Task, ImageArgs) (Output, error)) func(context.Context, *Task, ImageArgs) (Output, error) {
	return func(ctx context.Context, t *Task, a ImageArgs) (Output, error) {
		out, err := run(ctx, t, a)
		if _, camera := t.Driver.(device.Calibrator); err != nil || !camera {
			return out, err
		}
		if r, ok := out.Data.(ScreenshotResult); ok && r.Message == "" {
			r.Message = cameraFrameMessage
			out.Data = r
		}
		return out, nil
	}
}
