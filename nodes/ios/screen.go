package ios

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"

	"github.com/corral-farm/corral/nodes/device"
)

// screenInfo returns the screen's scale and size, asking WebDriverAgent once per session.
func (d *Driver) screenInfo(ctx context.Context) (screen, error) {
	d.screenMu.Lock()
	defer d.screenMu.Unlock()
	if d.screen != nil {
		return *d.screen, nil
	}
	w, h, err := d.wda.WindowSize(ctx)
	if err != nil {
		return screen{}, d.wdaError("read the window size", err)
	}
	scale, err := d.wda.Scale(ctx)
	if err != nil {
		return screen{}, d.wdaError("read the screen scale", err)
	}
	if w <= 0 || h <= 0 || scale <= 0 || scale > 10 {
		return screen{}, d.errorf("read the screen", fmt.Errorf("WebDriverAgent says %gx%g points at scale %g", w, h, scale),
			"WebDriverAgent answers nonsense: restart it")
	}
	s := screen{scale: scale, points: [2]float64{w, h}, pixels: device.Size{Width: int(w*scale + 0.5), Height: int(h*scale + 0.5)}}
	d.screen = &s
	return s, nil
}

// forgetScreen makes the next call ask again (WebDriverAgent restarted).
func (d *Driver) forgetScreen() {
	d.screenMu.Lock()
	d.screen = nil
	d.screenMu.Unlock()
}

// ScreenSize is the screen in pixels (points times the scale).
func (d *Driver) ScreenSize(ctx context.Context) (device.Size, error) {
	s, err := d.screenInfo(ctx)
	return s.pixels, err
}

// Density is the screen's dots per inch: 163 per point of scale, as iPhones are built (326 at
// 2x; 3x phones have 458–460, close enough for centimetre swipes).
func (d *Driver) Density(ctx context.Context) (int, error) {
	s, err := d.screenInfo(ctx)
	return int(163*s.scale + 0.5), err
}

// maxScreenshotPixels bounds a decoded screenshot (a 4K iPad is 2732x2048).
const maxScreenshotPixels = 4096 * 4096

// Screenshot is WebDriverAgent's PNG screenshot. A locked phone shows black: the driver asks
// WDA, wakes it where it can (no passcode) and says so where it cannot.
func (d *Driver) Screenshot(ctx context.Context) (image.Image, error) {
	img, err := d.screenshot(ctx)
	if err != nil || !dark(img) {
		return img, err
	}
	locked, err := d.wda.Locked(ctx)
	if err != nil || !locked {
		return img, nil // a dark app, or WDA cannot tell: show what there is
	}
	if err := d.wake(ctx, "wake the locked phone"); err != nil {
		return nil, err
	}
	if img, err = d.screenshot(ctx); err != nil || !dark(img) {
		return img, err
	}
	return nil, d.errorf("screenshot", errors.New("the screen is dark: the iPhone is locked"),
		"unlock it: unlock_phone with a passcode for it on the node (--passcodes), or press_button POWER")
}

func (d *Driver) screenshot(ctx context.Context) (image.Image, error) {
	data, err := d.wda.Screenshot(ctx)
	if err != nil {
		return nil, d.wdaError("screenshot", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width*cfg.Height > maxScreenshotPixels {
		return nil, d.errorf("screenshot", fmt.Errorf("WebDriverAgent's screenshot is not a PNG of a screen (%v, %dx%d)", err, cfg.Width, cfg.Height), "")
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, d.errorf("screenshot", fmt.Errorf("decode WebDriverAgent's PNG: %w", err), "")
	}
	return img, nil
}

// dark says whether every sampled pixel of img is black, as a locked phone's screenshot is.
func dark(img image.Image) bool {
	b := img.Bounds()
	const grid = 24
	for i := range grid {
		for j := range grid {
			r, g, bl, _ := img.At(b.Min.X+(2*i+1)*b.Dx()/(2*grid), b.Min.Y+(2*j+1)*b.Dy()/(2*grid)).RGBA()
			if r > 0x0800 || g > 0x0800 || bl > 0x0800 {
				return false
			}
		}
	}
	return true
}
