package tools

import (
	"context"
	"fmt"

	"github.com/corral-farm/corral/nodes/device"
)

// ImageArgs are the arguments of the tools that answer with an image of the screen.
type ImageArgs struct {
	// MaxWidth scales the image down to at most this many pixels wide (0: as the screen is).
	MaxWidth int `json:"max_width,omitempty" arg:"min=0" desc:"Scale down to this width in px"`
}

// Limits of max_width: narrower images are unreadable, wider ones no screen has.
const (
	minImageWidth = 64
	maxImageWidth = 8192
)

// Check validates the arguments: the schema says only min=0, so that 0 (the screen's width)
// stays a plain default.
func (a *ImageArgs) Check() error {
	if a.MaxWidth != 0 && (a.MaxWidth < minImageWidth || a.MaxWidth > maxImageWidth) {
		return fmt.Errorf("max_width must be between %d and %d pixels (or 0 for the screen's width), got %d", minImageWidth, maxImageWidth, a.MaxWidth)
	}
	return nil
}

// ScreenshotResult is the structured part of screenshot; the image itself is image content.
type ScreenshotResult struct {
	Name   string `json:"name" jsonschema:"Image name identifier (screenshot)"`
	Type   string `json:"type" jsonschema:"MIME type of the image (image/jpeg; image/png when take_screenshot is asked for png)"`
	Width  int    `json:"width" jsonschema:"Image width in pixels"`
	Height int    `json:"height" jsonschema:"Image height in pixels"`
}

// screenImage is the run of both screenshot (HttpRunner) and take_screenshot (phone-agent
// seed): the screen, as wide as asked at most.
func screenImage(ctx context.Context, t *Task, a ImageArgs) (Output, error) {
	if js, ok := t.Driver.(device.JPEGScreenshotter); ok {
		data, s, err := js.ScreenshotJPEG(ctx)
		if err != nil {
			return Output{}, err
		}
		if (a.MaxWidth == 0 || s.Width <= a.MaxWidth) && len(data) <= MaxImageBytes {
			return Output{JPEG: data, Data: ScreenshotResult{Name: "screenshot", Type: "image/jpeg", Width: s.Width, Height: s.Height}}, nil
		}
	}
	img, err := t.Driver.Screenshot(ctx)
	if err != nil {
		return Output{}, err
	}
	img = FitWidth(img, a.MaxWidth)
	b := img.Bounds()
	return Output{Image: img, Data: ScreenshotResult{Name: "screenshot", Type: "image/jpeg",
		Width: b.Dx(), Height: b.Dy()}}, nil
}
