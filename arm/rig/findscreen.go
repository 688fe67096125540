package rig

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/arm/camera"
	"github.com/corral-farm/corral/internal/geom"
)

// Finding the screen: a camera's frames lag (a stream's latest frame may be from before the
// page showed), so frames are looked at until one shows the page, for pageTimeout and at
// least pageFrames of them: a slow camera's first frame after the page showed (a loaded
// machine's `corral sim arm` took over 10 s a frame) came after pageTimeout, still from
// before the page, and the rig gave up on every try without seeing a frame of the page.
//
// A camera that is down (camera.ErrDown) is asked again too, until it has been down for
// timeout on end: an MJPEG stream that sent no frame for its stall timeout (10 s) is dropped
// and opened again at once, and the same slow camera is down meanwhile. Giving up at the
// first ErrDown failed the calibration of a rig whose camera came back a moment later.
const (
	pageTimeout = 10 * time.Second
	pageFrames  = 3
	pageRetry   = 100 * time.Millisecond
)

// findScreen finds the calibration page's quad in the camera's frames: it gives up once it
// has looked at pageFrames frames and timeout has passed, or once the camera has been down
// for timeout.
func (d *Driver) findScreen(ctx context.Context, timeout time.Duration) ([4]geom.Point, error) {
	const op = "calibrate"
	start := time.Now()
	var downSince time.Time // zero while the camera gives frames
	for seen := 0; ; {
		frame, err := d.cam.Frame(ctx)
		switch {
		case errors.Is(err, camera.ErrDown) && ctx.Err() == nil:
			if downSince.IsZero() {
				downSince = time.Now()
			}
			if down := time.Since(downSince); down > timeout {
				return [4]geom.Point{}, d.wrap(op, fmt.Errorf("%w (down for %s)", err, down.Round(100*time.Millisecond)), "check the camera")
			}
		case err != nil:
			return [4]geom.Point{}, d.wrap(op, err, "check the camera")
		default:
			downSince = time.Time{}
			seen++
			quad, err := calib.FindScreenQuad(frame)
			if err == nil {
				return quad, nil
			}
			if took := time.Since(start); seen >= pageFrames && took > timeout {
				return [4]geom.Point{}, d.wrap(op, fmt.Errorf("%w (%d frames looked at in %s)", err, seen, took.Round(100*time.Millisecond)),
					"the camera must see the whole screen showing the calibration page")
			}
		}
		select {
		case <-ctx.Done():
			return [4]geom.Point{}, d.wrap(op, ctx.Err(), "")
		case <-time.After(pageRetry):
		}
	}
}
