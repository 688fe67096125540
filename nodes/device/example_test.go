package device_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// plotter is a whole driver: a pen plotter whose "screen" is its paper. It taps (pen down and
// up) and swipes (draws a line), and has no other ability: the tools that need one answer
// that this device cannot do it.
type plotter struct {
	serial string
	paper  *image.Gray
}

var (
	_ device.Driver = (*plotter)(nil)
	_ device.Swiper = (*plotter)(nil)
)

var errOffPaper = errors.New("off the paper")

func (p *plotter) Info() device.Info {
	return device.Info{Serial: p.serial, Platform: "plotter", Model: "A4"}
}

func (p *plotter) ScreenSize(ctx context.Context) (device.Size, error) {
	b := p.paper.Bounds()
	return device.Size{Width: b.Dx(), Height: b.Dy()}, ctx.Err()
}

func (p *plotter) Screenshot(ctx context.Context) (image.Image, error) {
	return p.paper, ctx.Err()
}

// Tap puts the pen down at pt; the node converted relative coordinates and bboxes to pixels.
func (p *plotter) Tap(ctx context.Context, pt device.Point, hold time.Duration) error {
	if !image.Pt(pt.X, pt.Y).In(p.paper.Bounds()) {
		return &device.Error{Kind: "plotter", Serial: p.serial, Op: "tap", Err: errOffPaper,
			Hint: "tap inside the screen size get_screen_size reports"}
	}
	p.paper.SetGray(pt.X, pt.Y, color.Gray{})
	return ctx.Err()
}

// Swipe draws a line in steps, and stops when ctx ends (an abort or a deadline).
func (p *plotter) Swipe(ctx context.Context, from, to device.Point, d, hold time.Duration) error {
	const steps = 100
	for i := range steps + 1 {
		if err := ctx.Err(); err != nil {
			return err
		}
		x := from.X + (to.X-from.X)*i/steps
		y := from.Y + (to.Y-from.Y)*i/steps
		if err := p.Tap(ctx, device.Point{X: x, Y: y}, 0); err != nil {
			return err
		}
	}
	return nil
}

// A driver implements device.Driver and the optional abilities it has; the node finds them by
// type assertion.
func Example() {
	var drv device.Driver = &plotter{serial: "plotter-1", paper: image.NewGray(image.Rect(0, 0, 210, 297))}
	ctx := context.Background()
	size, _ := drv.ScreenSize(ctx)
	fmt.Println(drv.Info().Serial, size.Width, "x", size.Height)
	if s, ok := drv.(device.Swiper); ok {
		fmt.Println("swipe:", s.Swipe(ctx, device.Point{X: 0, Y: 0}, device.Point{X: 209, Y: 296}, time.Second, 0))
	}
	_, canType := drv.(device.TextInputter)
	fmt.Println("can type:", canType)
	fmt.Println(drv.Tap(ctx, device.Point{X: 500, Y: 10}, 0))
	// Output:
	// plotter-1 210 x 297
	// swipe: <nil>
	// can type: false
	// plotter plotter-1: tap: off the paper (tap inside the screen size get_screen_size reports)
}
