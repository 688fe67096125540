package web

import (
	"context"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/nodes/device"
)

// The device's screen is the visual viewport, what Page.captureScreenshot shows: a part of the
// layout viewport, offset in it and scaled by the page's scale. A page without a viewport meta
// tag is laid out 980 CSS pixels wide and zoomed out to fit a phone (scale 0.4 on the phone
// profile); a pinch zooms in. Everything the device answers and takes is in the screenshot's
// pixels, so that a box from get_source holds the element's pixels and a tap there hits it:
//   - an element's box (getBoundingClientRect: CSS pixels of the layout viewport) is at
//     (css - offset) × scale × DPR on the screen;
//   - Input.dispatchTouchEvent and dispatchMouseEvent take CSS pixels from the visual
//     viewport's corner (not the layout viewport's, and unscaled): a screen pixel p is
//     p / (DPR × scale) there.
// viewport_test.go holds Chromium to both.

// viewport is the visual viewport: the page's scale, and its offset in the layout viewport
// (CSS pixels).
type viewport struct {
	Scale, Left, Top float64
}

// visualViewport reads the tab's visual viewport. A Chromium too old to report it (before 92)
// is taken as unzoomed.
func visualViewport(ctx context.Context, t *chromedp.Target) (viewport, error) {
	m, err := answered(ctx, func(c context.Context) (page.GetLayoutMetricsResult, error) {
		return cdp.Call(c, t, page.GetLayoutMetrics, cdp.Empty{})
	})
	if err != nil {
		return viewport{}, err
	}
	v := m.CSSVisualViewport
	if v == nil || v.Scale <= 0 {
		return viewport{Scale: 1}, nil
	}
	return viewport{Scale: v.Scale, Left: v.OffsetX, Top: v.OffsetY}, nil
}

// scale is how many screen pixels a CSS pixel takes.
func (d *Driver) scale(v viewport) float64 {
	if v.Scale <= 0 || math.IsNaN(v.Scale) || math.IsInf(v.Scale, 0) {
		return d.prof.DPR
	}
	return d.prof.DPR * v.Scale
}

// input is a screen pixel's centre as input events take it.
func (d *Driver) input(v viewport, p device.Point) (x, y float64) {
	s := d.scale(v)
	return (float64(p.X) + 0.5) / s, (float64(p.Y) + 0.5) / s
}

// screen is a point of the layout viewport (CSS pixels, as getBoundingClientRect gives) in
// screen pixels.
func (d *Driver) screen(v viewport, x, y float64) (int, int) {
	s := d.scale(v)
	return int(math.Round((x - v.Left) * s)), int(math.Round((y - v.Top) * s))
}

// atPixel runs act at screen pixel p, read against the visual viewport as it is just before.
func (d *Driver) atPixel(p device.Point, act func(x, y float64) chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		v, err := visualViewport(ctx, t)
		if err != nil {
			return err
		}
		_, err = act(d.input(v, p))(ctx, t)
		return err
	})
}
