package web

import (
	"context"
	"math"
)

// cssDPI is the dots per inch of a CSS pixel on a phone or tablet: an Android dp's, 1/160
// inch (an iPhone's point is 1/163), what a mobile viewport's CSS pixel is drawn to.
const cssDPI = 160

// Density is the screen's dots per inch in device pixels, the ones the device answers and
// takes: 160 per device pixel ratio (480 on the phone profile, 390x844@3), so that a bbox
// swipe's centimetres are the emulated device's, not an assumed 420 dpi (QA Q13).
func (d *Driver) Density(ctx context.Context) (int, error) {
	return int(math.Round(cssDPI * d.prof.DPR)), ctx.Err()
}
