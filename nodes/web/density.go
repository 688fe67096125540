package web

import (
	"context"
	"math"
)

// A CSS pixel is drawn to 1/160 inch on a phone or tablet (an Android dp; an iPhone's point
// is 1/163) and to CSS's reference 1/96 inch on a desktop screen.
const (
	mobileCSSDPI  = 160
	desktopCSSDPI = 96
)

// Density is the screen's dots per inch in device pixels, the ones the device answers and
// takes: a CSS pixel's per device pixel ratio (480 on the phone profile, 390x844@3; 96 on
// the desktop one), so that a bbox swipe's centimetres are the emulated device's, not an
// assumed 420 dpi (QA Q13).
func (d *Driver) Density(ctx context.Context) (int, error) {
	return densityOf(d.prof), ctx.Err()
}

func densityOf(p Profile) int {
	css := float64(desktopCSSDPI)
	if p.Mobile {
		css = mobileCSSDPI
	}
	return int(math.Round(css * p.DPR))
}
