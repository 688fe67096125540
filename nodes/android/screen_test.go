package android

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// forget drops the cached screen size, so that the next ScreenSize asks the device.
func (c *screenCache) forget() {
	c.mu.Lock()
	c.at = time.Time{}
	c.mu.Unlock()
}

func TestOpaque(t *testing.T) {
	n := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for y := range 2 {
		for x := range 3 {
			n.SetNRGBA(x, y, color.NRGBA{R: uint8(10 * x), G: uint8(20 * y), B: 7, A: 0xff})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, n); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := opaque(dec).(*image.RGBA)
	if !ok {
		t.Fatalf("opaque(%T) is %T, want *image.RGBA", dec, opaque(dec))
	}
	for y := range 2 {
		for x := range 3 {
			if a, b := color.RGBAModel.Convert(n.At(x, y)), got.At(x, y); a != b {
				t.Errorf("(%d,%d): %v, want %v", x, y, b, a)
			}
		}
	}
	n.SetNRGBA(1, 1, color.NRGBA{A: 0x80})
	if _, ok := opaque(n).(*image.NRGBA); !ok {
		t.Error("a translucent image was turned into RGBA")
	}
}

// StreamScreenshot tells the frame's rows as they arrive and returns that frame, with the
// PNG's pixels, on devices with either framebuffer header (Android 8 added the colour space).
func TestStreamScreenshot(t *testing.T) {
	for _, sdk := range []int{34, 25} {
		_, d := newDevice(t, adbsim.WithAndroid(strconv.Itoa(sdk), sdk))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var (
			told  []int
			frame *image.RGBA
		)
		img, err := d.StreamScreenshot(ctx, func(f *image.RGBA, n int) { frame, told = f, append(told, n) })
		if err != nil {
			t.Fatal(err)
		}
		if frame == nil || img != image.Image(frame) || told[len(told)-1] != frame.Rect.Dy() || !slices.IsSorted(told) {
			t.Fatalf("SDK %d: returned %T, told rows %v of %v", sdk, img, told, frame.Rect)
		}
		fromPNG, err := d.screenshotPNG(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p := fromPNG.(*image.RGBA); p.Rect != frame.Rect || !bytes.Equal(p.Pix, frame.Pix) {
			t.Errorf("SDK %d: the streamed frame differs from the PNG", sdk)
		}
	}
}

// jpegTrap is the real driver that also offers a JPEG of the screen no decoder accepts, and
// counts the rows of raw frames it tells: a screenshot tool that decoded a JPEG to scale it,
// rather than scaling the raw frame as it arrives, would fail here.
type jpegTrap struct {
	*Driver
	told atomic.Int64
}

func (j *jpegTrap) ScreenshotJPEG(context.Context) ([]byte, device.Size, error) {
	return []byte("\xff\xd8 not a JPEG"), device.Size{Width: 1080, Height: 2400}, nil
}

func (j *jpegTrap) StreamScreenshot(ctx context.Context, rows func(*image.RGBA, int)) (image.Image, error) {
	return j.Driver.StreamScreenshot(ctx, func(f *image.RGBA, n int) { j.told.Add(1); rows(f, n) })
}

// The screenshot tool on Android scales the raw frame while it arrives and encodes it once:
// as wide as asked, never a JPEG decoded, and showing the screen.
func TestScreenshotToolScalesTheRawFrame(t *testing.T) {
	_, d := newDevice(t)
	trap := &jpegTrap{Driver: d}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args string
		want image.Image
	}{{`{"max_width":540}`, halveRGBA(raw.(*image.RGBA))}, {`{}`, raw}} {
		trap.told.Store(0)
		out, err := tools.DefaultOps()["screenshot"].Run(ctx, &tools.Task{Driver: trap, Args: []byte(tc.args)})
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		got, err := jpeg.Decode(bytes.NewReader(out.JPEG))
		if err != nil {
			t.Fatalf("%s: the screenshot is no JPEG: %v", tc.args, err)
		}
		res := out.Data.(tools.ScreenshotResult)
		if b := tc.want.Bounds(); got.Bounds() != b || res.Width != b.Dx() || res.Height != b.Dy() || out.Image != nil {
			t.Fatalf("%s: a %v JPEG, the result says %dx%d; want %v", tc.args, got.Bounds(), res.Width, res.Height, b)
		}
		if trap.told.Load() == 0 {
			t.Errorf("%s: the tool did not take the raw frame as it arrived", tc.args)
		}
		if diff := meanLumaDiff(got, tc.want); diff > 2 {
			t.Errorf("%s: the JPEG's luma is %.1f levels off the screen on average", tc.args, diff)
		}
	}
	// The console's live screens take the same path.
	trap.told.Store(0)
	data, size, err := tools.ScreenJPEG(ctx, trap, 540)
	if err != nil {
		t.Fatal(err)
	}
	got, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil || got.Bounds().Dx() != 540 || size != got.Bounds().Size() || trap.told.Load() == 0 {
		t.Fatalf("ScreenJPEG: a %v JPEG (%v), said to be %v, rows told %d", got.Bounds(), err, size, trap.told.Load())
	}
	if diff := meanLumaDiff(got, halveRGBA(raw.(*image.RGBA))); diff > 2 {
		t.Errorf("ScreenJPEG: the JPEG's luma is %.1f levels off the screen on average", diff)
	}
}

// halveRGBA averages each 2x2 block of img.
func halveRGBA(img *image.RGBA) *image.RGBA {
	w, h := img.Rect.Dx()/2, img.Rect.Dy()/2
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			for c := range 4 {
				sum := 2
				for _, p := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
					sum += int(img.Pix[img.PixOffset(2*x+p[0], 2*y+p[1])+c])
				}
				out.Pix[out.PixOffset(x, y)+c] = uint8(sum / 4)
			}
		}
	}
	return out
}

// meanLumaDiff is the mean difference of luma between a decoded JPEG and the image it shows.
func meanLumaDiff(got, want image.Image) float64 {
	y := got.(*image.YCbCr)
	w := want.(*image.RGBA)
	sum := 0.0
	for j := range w.Rect.Dy() {
		for i := range w.Rect.Dx() {
			p := w.Pix[w.PixOffset(i, j):]
			l, _, _ := color.RGBToYCbCr(p[0], p[1], p[2])
			sum += math.Abs(float64(l) - float64(y.Y[y.YOffset(i, j)]))
		}
	}
	return sum / float64(w.Rect.Dx()*w.Rect.Dy())
}
