package nodes

import (
	"context"
	"fmt"
	"time"
)

// NoArgs is the argument struct of tools that take only the common device arguments.
type NoArgs struct{}

// ScreenSizeResult is get_screen_size's structured result (HttpRunner seed).
type ScreenSizeResult struct {
	Width   int    `json:"width" jsonschema:"Screen width in pixels"`
	Height  int    `json:"height" jsonschema:"Screen height in pixels"`
	Message string `json:"message" jsonschema:"Formatted message with the screen size"`
}

// ScreenshotResult is the structured part of screenshot; the image itself is image content.
type ScreenshotResult struct {
	Name   string `json:"name" jsonschema:"Image name identifier (screenshot)"`
	Type   string `json:"type" jsonschema:"MIME type of the image (image/jpeg)"`
	Width  int    `json:"width" jsonschema:"Image width in pixels"`
	Height int    `json:"height" jsonschema:"Image height in pixels"`
}

func opGetScreenSize() Op {
	return Op{Name: "get_screen_size", Timeout: 10 * time.Second, MaxTimeout: time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			if err := DecodeArgs(t.Args, &NoArgs{}); err != nil {
				return Output{}, err
			}
			s, err := t.Driver.ScreenSize(ctx)
			if err != nil {
				return Output{}, err
			}
			return Output{Data: ScreenSizeResult{Width: s.Width, Height: s.Height,
				Message: fmt.Sprintf("screen size: %dx%d pixels", s.Width, s.Height)}}, nil
		}}
}

// opScreenshot serves both screenshot (HttpRunner) and take_screenshot (phone-agent seed).
func opScreenshot(name string) Op {
	return Op{Name: name, Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			if err := DecodeArgs(t.Args, &NoArgs{}); err != nil {
				return Output{}, err
			}
			img, err := t.Driver.Screenshot(ctx)
			if err != nil {
				return Output{}, err
			}
			b := img.Bounds()
			return Output{Image: img, Data: ScreenshotResult{Name: "screenshot", Type: "image/jpeg",
				Width: b.Dx(), Height: b.Dy()}}, nil
		}}
}
