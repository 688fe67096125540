package tools

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"

	"github.com/corral-farm/corral/nodes/device"
)

// ImageArgs are the arguments of the tools that answer with an image of the screen.
type ImageArgs struct {
	// MaxWidth scales the image down to at most this many pixels wide (0: as the screen is).
	MaxWidth int `json:"max_width,omitempty" arg:"min=0" desc:"Scale down to this width in px"`
	SeedOptions
}

// Limits of max_width: narrower images are unreadable, wider ones no screen has.
const (
	minImageWidth = 64
	maxImageWidth = 8192
)

// Check fits max_width to what a screen can give, refusing none the schema allows (min=0,
// so that 0, the screen's width, stays a plain default): one over maxImageWidth is the
// screen's width (as any at least as wide is). One under minImageWidth is kept as asked: the
// image is made minImageWidth wide (readableWidth), and its answer says so (widerNote); a
// gateway that checked first passes on what was asked.
func (a *ImageArgs) Check() error {
	if a.MaxWidth > maxImageWidth {
		a.MaxWidth = 0
	}
	return nil
}

// readableWidth is the width to scale an image to for max_width w: w, but minImageWidth for
// one narrower (0: the screen's width).
func readableWidth(w int) int {
	if w > 0 && w < minImageWidth {
		return minImageWidth
	}
	return w
}

// widerNote says, for an answer's message, that an image got px wide is wider than the
// max_width asked ("": it is not).
func widerNote(asked, got int) string {
	if asked <= 0 || got <= asked {
		return ""
	}
	return fmt.Sprintf("the image is %d px wide, not max_width %d: %d px is the narrowest readable", got, asked, minImageWidth)
}

// withNote is msg and note joined ("; "), either empty.
func withNote(msg, note string) string {
	if msg == "" || note == "" {
		return msg + note
	}
	return msg + "; " + note
}

// ScreenshotResult is the structured part of screenshot; the image itself is image content.
type ScreenshotResult struct {
	Name   string `json:"name" jsonschema:"Image name identifier (screenshot)"`
	Type   string `json:"type" jsonschema:"MIME type: image/jpeg; take_screenshot's image/png, but with format jpeg"`
	Width  int    `json:"width" jsonschema:"Image width in pixels"`
	Height int    `json:"height" jsonschema:"Image height in pixels"`
	// Message is set when the image is not as wide as asked: a PNG scaled down to fit the cap,
	// or 64 px for a max_width under 64.
	Message string `json:"message,omitempty" jsonschema:"Why not the size asked; on an arm: a camera frame"`
}

// screenImage is the run of both screenshot (HttpRunner) and take_screenshot (phone-agent
// seed): the screen, as wide as asked at most. Raw pixels are scaled, if need be, and encoded
// once; a device's own JPEG is sent as it is, or decoded once when it must be scaled.
func screenImage(ctx context.Context, t *Task, a ImageArgs) (Output, error) {
	out, err := screenImageAt(ctx, t, readableWidth(a.MaxWidth))
	if r, ok := out.Data.(ScreenshotResult); ok && err == nil {
		r.Message = withNote(r.Message, widerNote(a.MaxWidth, r.Width))
		out.Data = r
	}
	return out, err
}

// screenImageAt is screenImage at most maxWidth wide (0: the screen's width).
func screenImageAt(ctx context.Context, t *Task, maxWidth int) (Output, error) {
	if fs, ok := t.Driver.(FrameStreamer); ok {
		return streamedImage(ctx, fs, maxWidth)
	}
	var (
		img image.Image
		err error
	)
	if js, ok := t.Driver.(device.JPEGScreenshotter); ok {
		data, s, err := js.ScreenshotJPEG(ctx)
		if err != nil {
			return Output{}, err
		}
		if (maxWidth == 0 || s.Width <= maxWidth) && len(data) <= MaxImageBytes {
			return Output{JPEG: data, Data: ScreenshotResult{Name: "screenshot", Type: "image/jpeg", Width: s.Width, Height: s.Height}}, nil
		}
		// A browser gives no raw pixels: the JPEG it gave is all there is to scale.
		if img, err = jpeg.Decode(bytes.NewReader(data)); err != nil {
			return Output{}, fmt.Errorf("decode the device's JPEG screenshot: %w", err)
		}
	} else if img, err = t.Driver.Screenshot(ctx); err != nil {
		return Output{}, err
	}
	if img, err = FitWidth(ctx, img, maxWidth); err != nil {
		return Output{}, err
	}
	b := img.Bounds()
	return Output{Image: img, Data: ScreenshotResult{Name: "screenshot", Type: "image/jpeg",
		Width: b.Dx(), Height: b.Dy()}}, nil
}

// streamedImage is screenImage for a driver that streams its frame: the JPEG is encoded while
// the frame arrives, at the first of jpegQualities; only one over MaxImageBytes is encoded
// again, at the next ones.
func streamedImage(ctx context.Context, fs FrameStreamer, maxWidth int) (Output, error) {
	s := stripStream{ctx: ctx, maxWidth: maxWidth, quality: jpegQualities[0]}
	img, err := fs.StreamScreenshot(ctx, s.rows)
	data, ok, jerr := s.jpeg(img) // waits for the strips, whatever happened
	if err != nil {
		return Output{}, err
	}
	if jerr != nil {
		return Output{}, jerr
	}
	var out image.Image = s.out
	qualities := jpegQualities[1:]
	if !ok {
		if out, err = FitWidth(ctx, img, maxWidth); err != nil {
			return Output{}, err
		}
		qualities = jpegQualities
	}
	if !ok || len(data) > MaxImageBytes {
		if data, out, err = fitJPEG(ctx, out, MaxImageBytes, qualities); err != nil {
			return Output{}, err
		}
	}
	b := out.Bounds()
	return Output{JPEG: data, Data: ScreenshotResult{Name: "screenshot", Type: "image/jpeg", Width: b.Dx(), Height: b.Dy()}}, nil
}
