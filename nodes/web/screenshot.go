package web

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/corral-farm/corral/nodes/device"
)

// shotQuality is the JPEG quality screenshots are captured at: the tools answer in JPEG, and
// 85 keeps text sharp for OCR within the tools' image limit.
const shotQuality = 85

// Screenshot captures the tab in front at device pixels.
func (d *Driver) Screenshot(ctx context.Context) (image.Image, error) {
	data, _, err := d.ScreenshotJPEG(ctx)
	if err != nil {
		return nil, err
	}
	img, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, d.wrap("screenshot", err, "")
	}
	return img, nil
}

// ScreenshotJPEG captures the tab in front at device pixels as Chromium encodes it. After the
// browser was replaced it answers ErrBrowserReplaced until another call has been told.
func (d *Driver) ScreenshotJPEG(ctx context.Context) ([]byte, device.Size, error) {
	if err := d.peekReplaced(ctx); err != nil {
		return nil, device.Size{}, err
	}
	c, done, err := d.tab(ctx)
	if err != nil {
		return nil, device.Size{}, err
	}
	defer done()
	var res page.CaptureScreenshotResult
	d.reached(stepRead)
	err = whileNavigating(c, func() (err error) {
		if err := chromedp.Do(c, untilStill(readStill)); err != nil { // one state for a peek's reads (still.go)
			return err
		}
		res, err = answered(c, func(c context.Context) (page.CaptureScreenshotResult, error) {
			return chromedp.Call(c, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg,
				Quality: ptr(int64(shotQuality)), OptimizeForSpeed: ptr(true)})
		})
		return err
	})
	if err != nil && browserDied(c) {
		return nil, device.Size{}, d.diedUnder(ctx, c, "screenshot", err, errDiedReading, ", then repeat the call")
	}
	if err != nil {
		return nil, device.Size{}, d.wrap("screenshot", err, hintFor(err))
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(res.Data))
	if err != nil {
		return nil, device.Size{}, d.wrap("screenshot", err, "")
	}
	return res.Data, device.Size{Width: cfg.Width, Height: cfg.Height}, nil
}
