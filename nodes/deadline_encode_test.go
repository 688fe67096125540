package nodes

import (
	"context"
	"image"
	"image/color"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// endsAtLook is a task's context whose deadline passes at its n-th look (Err) once armed:
// from the screenshot on, so that it passes while the JPEG is encoded.
type endsAtLook struct {
	*taskClock
	armed atomic.Bool
	looks atomic.Int64
	n     int64
}

func (c *endsAtLook) Err() error {
	if c.armed.Load() && c.looks.Add(1) >= c.n {
		c.pass()
	}
	return c.taskClock.Err()
}

// armingDriver's screenshot is a phone's screen, and arms the task's clock.
type armingDriver struct {
	clock *endsAtLook
	img   *image.RGBA
}

func (d *armingDriver) Info() device.Info {
	return device.Info{Serial: "late-2", Platform: device.PlatformAndroid}
}
func (d *armingDriver) ScreenSize(context.Context) (device.Size, error) {
	return device.Size{Width: 1080, Height: 2400}, nil
}
func (d *armingDriver) Screenshot(context.Context) (image.Image, error) {
	d.clock.armed.Store(true)
	return d.img, nil
}
func (d *armingDriver) Tap(context.Context, device.Point, time.Duration) error { return nil }

// The screenshot's encoder works with the task's context: a deadline that passes while it
// encodes (at its looks) ends the task timed_out, and the encoder stops rather than finish a
// JPEG nobody waits for. With an encoder that does not look, the deadline never came here and
// the screenshot succeeded.
func TestScreenshotEncoderLooksAtTheTasksDeadline(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1080, 2400))
	for y := range 2400 {
		for x := range 1080 {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 7), uint8(y * 3), uint8((x ^ y) & 0xff), 0xff})
		}
	}
	clock := &endsAtLook{taskClock: newTaskClock(), n: 8}
	b := newBoundDevice(&armingDriver{clock: clock, img: img}, tools.DefaultOps(), "n1", 1, nil)
	res := b.Execute(clock, broker.TaskRequest{ID: "shot", Tool: "screenshot"}, nil)
	if res.Outcome != broker.OutcomeTimedOut || res.Image != nil {
		t.Errorf("the deadline passed while the JPEG was encoded: %s %s %q (image %d bytes); want timed_out, no image", res.Outcome, res.Code, res.Error, len(res.Image))
	}
}
