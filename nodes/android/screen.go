package android

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"strconv"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// sizeTTL is how long a screen size is reused: every relative tap needs it, and a rotation or
// `wm size` override shows within this time.
const sizeTTL = time.Second

// screenCache remembers the last screen size for sizeTTL.
type screenCache struct {
	mu   sync.Mutex
	size device.Size
	at   time.Time
}

func (c *screenCache) get() (device.Size, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size, !c.at.IsZero() && time.Since(c.at) < sizeTTL
}

func (c *screenCache) put(s device.Size) {
	c.mu.Lock()
	c.size, c.at = s, time.Now()
	c.mu.Unlock()
}

// ScreenSize returns the size of the screen as it is now: the `wm size` override if any,
// turned by the current rotation. It is reused for up to a second.
func (d *Driver) ScreenSize(ctx context.Context) (device.Size, error) {
	const op = "screen size"
	if s, ok := d.size.get(); ok {
		return s, nil
	}
	var (
		wg              sync.WaitGroup
		sizeOut, rotOut string
		sizeErr, rotErr error
	)
	wg.Go(func() { sizeOut, sizeErr = d.shell(ctx, op, "wm size") })
	wg.Go(func() { rotOut, rotErr = d.shell(ctx, op, "dumpsys input | grep Orientation") })
	wg.Wait()
	if sizeErr != nil {
		return device.Size{}, sizeErr
	}
	if rotErr != nil {
		return device.Size{}, rotErr
	}
	natural, err := parseWMSize(sizeOut)
	if err != nil {
		return device.Size{}, d.fail(ctx, op, err, "")
	}
	rotation, _, err := parseOrientation(rotOut) // no line: natural orientation
	if err != nil {
		return device.Size{}, d.fail(ctx, op, err, "")
	}
	s := rotate(natural, rotation)
	d.size.put(s)
	return s, nil
}

// Density returns the screen density in dots per inch: the `wm density` override if any.
func (d *Driver) Density(ctx context.Context) (int, error) {
	const op = "density"
	out, err := d.shell(ctx, op, "wm density")
	if err != nil {
		return 0, err
	}
	n, err := parseWMDensity(out)
	if err != nil {
		return 0, d.fail(ctx, op, err, "")
	}
	return n, nil
}

// Screenshot returns the screen. It asks for the raw framebuffer (`screencap` through the
// exec: service, which carries bytes unchanged): the device spends no time compressing a PNG
// and the node none decoding it, which costs more than moving the larger answer over a local
// adb server. A device whose framebuffer is in a format the driver does not read gets asked
// for a PNG instead (`screencap -p`).
func (d *Driver) Screenshot(ctx context.Context) (image.Image, error) {
	return d.StreamScreenshot(ctx, nil)
}

// StreamScreenshot is Screenshot for a caller that works on the frame while the rest is still
// on its way (the tools encode a JPEG strip by strip): 10 MB take a while through adb. Each
// time more rows of the RGBA frame are in, it calls rows(frame, n): rows 0 to n-1 of frame
// are final then, and may be read from any goroutine. It returns that frame once all is in;
// any other image it returns (a PNG, or a frame whose header was not the length the SDK level
// says) voids what rows was told.
func (d *Driver) StreamScreenshot(ctx context.Context, rows func(frame *image.RGBA, n int)) (image.Image, error) {
	const op = "screenshot"
	raw, frame, err := d.pullFramebuffer(ctx, rows)
	if err != nil {
		return nil, d.fail(ctx, op, err, "")
	}
	if frame != nil {
		return frame, nil
	}
	img, ok, err := parseFramebuffer(raw)
	if err != nil {
		return nil, d.fail(ctx, op, err, "")
	}
	if ok {
		return img, nil
	}
	return d.screenshotPNG(ctx)
}

// pullFramebuffer runs `screencap` as exec does, reading the answer with readFramebuffer.
// A frame of the length its header announced needs no presence question: the command
// finished, since a device that leaves cuts the stream short.
func (d *Driver) pullFramebuffer(ctx context.Context, rows func(*image.RGBA, int)) ([]byte, *image.RGBA, error) {
	spare := dialAhead(ctx, d.addr) // for the presence question, if it must be asked
	defer spare.discard()
	c, release, err := d.open(ctx, "exec:screencap")
	if err != nil {
		return nil, nil, err
	}
	defer release()
	raw, frame, err := readFramebuffer(c, maxImageOutput, d.framebufferHeader(), rows)
	if err != nil {
		return nil, nil, err
	}
	if int64(len(raw)) > maxImageOutput {
		return nil, nil, fmt.Errorf("%w: the answer is longer than %d bytes", ErrCommandFailed, maxImageOutput)
	}
	if frame != nil {
		return raw, frame, nil
	}
	if err := d.present(ctx, spare); err != nil {
		return nil, nil, err
	}
	return raw, nil, nil
}

// framebufferHeader is the length of screencap's header on this device, by its SDK level
// (the longer one if that is unknown).
func (d *Driver) framebufferHeader() int {
	if sdk, err := strconv.Atoi(d.info.SDK); err == nil && sdk < colourSpaceSDK {
		return headerShort
	}
	return headerLong
}

// screenshotPNG returns the screen as `screencap -p` draws it.
func (d *Driver) screenshotPNG(ctx context.Context) (image.Image, error) {
	const op = "screenshot"
	raw, err := d.exec(ctx, op, "screencap -p", maxImageOutput, nil)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		head := raw[:min(len(raw), 120)]
		return nil, d.fail(ctx, op, fmt.Errorf("%w: screencap answered %d bytes that are no PNG (%v): %s",
			ErrCommandFailed, len(raw), err, quoteOutput(string(head))), "")
	}
	return opaque(img), nil
}

// opaque returns an NRGBA image whose pixels are all opaque as the same pixels in an RGBA
// image, without copying: phones' screencap PNGs have an alpha channel (and so decode as
// NRGBA) that is always opaque, and image/jpeg encodes RGBA several times faster.
func opaque(img image.Image) image.Image {
	n, ok := img.(*image.NRGBA)
	if !ok {
		return img
	}
	for y := 0; y < n.Rect.Dy(); y++ {
		row := n.Pix[y*n.Stride : y*n.Stride+n.Rect.Dx()*4]
		for i := 3; i < len(row); i += 4 {
			if row[i] != 0xff {
				return img
			}
		}
	}
	return &image.RGBA{Pix: n.Pix, Stride: n.Stride, Rect: n.Rect}
}
