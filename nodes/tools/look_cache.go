package tools

import (
	"context"
	"image"
	"sync"
	"weak"

	"github.com/corral-farm/corral/nodes/device"
)

// The console looks at every watched device twice a second, mostly at an unchanged screen, and
// a driver that knows its screen did not change hands out the same frame again (nodes/sim
// keeps its drawn screen: read, never drawn on). Scaling that frame to the console's width was
// 68% of a look (f672292) and encoding it 20%, each time for the same JPEG. So a device's
// last look is kept: the frame it was made of, by identity, with the width asked and the JPEG
// made; a look at the same frame at the same width is answered with that JPEG. One entry is
// enough: a device has one capture loop, at one width.
//
// The frame is held weakly: a device that lets its pixels go (an idle simulated phone after
// 30 s) is not kept holding 10 MB by its cache, and a frame allocated later at the same
// address is not taken for it. A driver that hands out one *image.RGBA twice promises that it
// did not draw on it in between; the others give a new image each time, which never matches.

// LookCache is one device's last look (ScreenJPEG). Its zero value is empty and ready.
type LookCache struct {
	mu    sync.Mutex
	frame weak.Pointer[image.RGBA]
	width int
	jpeg  []byte
	size  image.Point
}

// ScreenJPEG is ScreenJPEG, answered from the cache when the driver hands out the frame of the
// last look again at the same width. A nil cache keeps nothing.
func (c *LookCache) ScreenJPEG(ctx context.Context, drv device.Driver, maxWidth int) ([]byte, image.Point, error) {
	ctx = device.Look(ctx)
	_, streams := drv.(FrameStreamer)
	_, ownJPEG := drv.(device.JPEGScreenshotter)
	if streams || ownJPEG { // made as the frame arrives, or the device's own: nothing to keep
		out, err := screenImage(ctx, &Task{Driver: drv}, ImageArgs{MaxWidth: maxWidth})
		if err != nil {
			return nil, image.Point{}, err
		}
		r := out.Data.(ScreenshotResult)
		if out.JPEG == nil {
			out.JPEG, err = EncodeJPEG(ctx, out.Image, MaxImageBytes)
		}
		return out.JPEG, image.Pt(r.Width, r.Height), err
	}
	img, err := drv.Screenshot(ctx)
	if err != nil {
		return nil, image.Point{}, err
	}
	frame, _ := img.(*image.RGBA)
	if data, size, ok := c.find(frame, maxWidth); ok {
		return data, size, nil
	}
	shown, err := FitWidth(ctx, img, maxWidth)
	if err != nil {
		return nil, image.Point{}, err
	}
	data, shown, err := fitJPEG(ctx, shown, MaxImageBytes, jpegQualities)
	if err != nil {
		return nil, image.Point{}, err
	}
	size := shown.Bounds().Size()
	c.keep(frame, maxWidth, data, size)
	return data, size, nil
}

// find returns the JPEG of the last look if it was made of frame at width.
func (c *LookCache) find(frame *image.RGBA, width int) ([]byte, image.Point, bool) {
	if c == nil || frame == nil {
		return nil, image.Point{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.jpeg == nil || c.width != width || c.frame != weak.Make(frame) {
		return nil, image.Point{}, false
	}
	return c.jpeg, c.size, true
}

// keep records the look made of frame at width; a frame that is not an *image.RGBA (a decoded
// PNG, new each time) empties the cache.
func (c *LookCache) keep(frame *image.RGBA, width int, data []byte, size image.Point) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if frame == nil {
		c.frame, c.jpeg = weak.Pointer[image.RGBA]{}, nil
		return
	}
	c.frame, c.width, c.jpeg, c.size = weak.Make(frame), width, data, size
}
