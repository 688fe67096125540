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
// to the screen: an arm rig) say that its image is the camera's frame, before whatever else
// it says (take_screenshot's PNG scaled down to fit).
func sayCameraFrame[A any](run func(context.Context, *Task, A) (Output, error)) func(context.Context, *Task, A) (Output, error) {
	return func(ctx context.Context, t *Task, a A) (Output, error) {
		out, err := run(ctx, t, a)
		if err != nil || !cameraDriven(t.Driver) {
			return out, err
		}
		if r, ok := out.Data.(ScreenshotResult); ok {
			if r.Message == "" {
				r.Message = cameraFrameMessage
			} else {
				r.Message = cameraFrameMessage + "; " + r.Message
			}
			out.Data = r
		}
		return out, nil
	}
}

// cameraDriven says whether d sees its screen through a camera it calibrates: an arm rig.
func cameraDriven(d device.Driver) bool {
	_, ok := d.(device.Calibrator)
	return ok
}

// screenImageName names what a device's screenshot is, as peek's message tells it: the
// camera's frame on an arm rig.
func screenImageName(d device.Driver) string {
	if cameraDriven(d) {
		return "the overhead camera's frame (rectified to the screen, not the phone's own screenshot)"
	}
	return "the screenshot"
}
