package tools

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// TakeScreenshotArgs are take_screenshot's arguments: screenshot's, and the format: PNG by
// default, as the phone-agent seed sends ("返回 PNG 图片"), JPEG on request (smaller).
type TakeScreenshotArgs struct {
	MaxWidth int    `json:"max_width,omitempty" arg:"min=0" desc:"Scale down to this width in px"`
	Format   string `json:"format,omitempty" arg:"enum=png|jpeg" desc:"png (default, as the phone-agent seed) or jpeg"`
}

// Check fits max_width as screenshot does.
func (a *TakeScreenshotArgs) Check() error {
	img := ImageArgs{MaxWidth: a.MaxWidth}
	err := img.Check()
	a.MaxWidth = img.MaxWidth
	return err
}

func takeScreenshot() Tool {
	return Define[TakeScreenshotArgs, ScreenshotResult](Tool{Name: "take_screenshot", Description: "Take a screenshot of the phone screen (phone-agent's name): a PNG image, or a JPEG with format jpeg.",
		Hints: ReadOnly, Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{PhoneAgent}, Short: noParams, DefaultDevice: true,
		Uses: []Ability{Need[device.JPEGScreenshotter]("send the screen as captured")},
	}, sayCameraFrame(func(ctx context.Context, t *Task, a TakeScreenshotArgs) (Output, error) {
		if strings.EqualFold(a.Format, "jpeg") {
			return screenImage(ctx, t, ImageArgs{MaxWidth: a.MaxWidth})
		}
		img, err := t.Driver.Screenshot(ctx)
		if err != nil {
			return Output{}, err
		}
		if img, err = FitWidth(ctx, img, readableWidth(a.MaxWidth)); err != nil {
			return Output{}, err
		}
		asked := img.Bounds()
		data, img, err := encodePNG(ctx, img, MaxImageBytes)
		if err != nil {
			return Output{}, err
		}
		b := img.Bounds()
		res := ScreenshotResult{Name: "screenshot", Type: "image/png", Width: b.Dx(), Height: b.Dy()}
		if b.Dx() < asked.Dx() { // a noisy frame (an arm's camera) does not compress: say it is smaller
			res.Message = fmt.Sprintf("scaled to %d×%d (from %d×%d) to fit the %d KB cap of a PNG; ask for format jpeg for the full size",
				b.Dx(), b.Dy(), asked.Dx(), asked.Dy(), MaxImageBytes/1000)
		}
		res.Message = withNote(res.Message, widerNote(a.MaxWidth, b.Dx()))
		return Output{PNG: data, Data: res}, nil
	}))
}

// encodePNG encodes img as PNG of at most limit bytes, halving it until it fits; it returns
// the image it encoded. png.Encode takes no ctx: it looks at ctx before each try.
func encodePNG(ctx context.Context, img image.Image, limit int) ([]byte, image.Image, error) {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	for range 4 {
		if err := workEnded(ctx); err != nil {
			return nil, nil, fmt.Errorf("encode PNG: %w", err)
		}
		var b bytes.Buffer
		if err := enc.Encode(&b, img); err != nil {
			return nil, nil, err
		}
		if b.Len() <= limit {
			return b.Bytes(), img, nil
		}
		var err error
		if img, err = halve(ctx, img); err != nil {
			return nil, nil, err
		}
	}
	return nil, nil, fmt.Errorf("the screenshot does not fit in %d bytes as PNG even at 1/8 size: ask for format jpeg", limit)
}
