package tools

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/corral-farm/corral/nodes/device"
)

// NoArgs is the argument struct of tools that take only the common device arguments.
type NoArgs struct{}

// ScreenSizeResult is get_screen_size's structured result (HttpRunner seed).
type ScreenSizeResult struct {
	Width   int    `json:"width" jsonschema:"Screen width in pixels"`
	Height  int    `json:"height" jsonschema:"Screen height in pixels"`
	Message string `json:"message" jsonschema:"Formatted message with the screen size"`
}

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
	Type   string `json:"type" jsonschema:"MIME type of the image (image/jpeg)"`
	Width  int    `json:"width" jsonschema:"Image width in pixels"`
	Height int    `json:"height" jsonschema:"Image height in pixels"`
}

func getScreenSize() Tool {
	return NewTool[NoArgs, ScreenSizeResult](Tool{Name: "get_screen_size", Description: "Get the device's screen size in pixels.",
		Hints: ReadOnly, Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner}, Short: noParams,
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
		}})
}

// opScreenshot serves both screenshot (HttpRunner) and take_screenshot (phone-agent seed).
func opScreenshot(name string) Op {
	return Op{Name: name, Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a ImageArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			img, err := t.Driver.Screenshot(ctx)
			if err != nil {
				return Output{}, err
			}
			img = FitWidth(img, a.MaxWidth)
			b := img.Bounds()
			return Output{Image: img, Data: ScreenshotResult{Name: "screenshot", Type: "image/jpeg",
				Width: b.Dx(), Height: b.Dy()}}, nil
		}}
}

// MaxSourceBytes bounds the UI source a result carries; a longer one is cut (at a character
// boundary) and the message says so.
const MaxSourceBytes = 512 << 10

// SourceArgs are get_source's arguments (HttpRunner seed).
type SourceArgs struct {
	PackageName string `json:"packageName,omitempty" arg:"maxLength=255" pattern:"^[A-Za-z0-9._-]+$" desc:"Package or bundle id, e.g. com.android.settings" hint:"package names and bundle ids are letters, digits, '.', '_' and '-' (list_packages lists them)"`
}

// SourceResult is get_source's structured result (HttpRunner seed).
type SourceResult struct {
	Message     string `json:"message" jsonschema:"Success message confirming the UI source was retrieved"`
	PackageName string `json:"packageName" jsonschema:"Package asked for"`
	Source      string `json:"source" jsonschema:"UI hierarchy as XML (pixel bounds)"`
}

func opGetSource() Op {
	return Op{Name: "get_source", Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute,
		Run: func(ctx context.Context, t *Task) (Output, error) {
			var a SourceArgs
			if err := DecodeArgs(t.Args, &a); err != nil {
				return Output{}, err
			}
			d, ok := t.Driver.(device.SourceDumper)
			if !ok {
				return Output{}, Unsupported(t.Driver, "dump its UI source")
			}
			src, err := d.Source(ctx)
			if err != nil {
				return Output{}, err
			}
			msg := fmt.Sprintf("UI source of the current screen: %d bytes", len(src))
			if len(src) > MaxSourceBytes {
				n := MaxSourceBytes
				for n > 0 && !utf8.RuneStart(src[n]) {
					n--
				}
				msg = fmt.Sprintf("UI source of the current screen, cut to its first %d of %d bytes (the XML is incomplete)", n, len(src))
				src = src[:n]
			}
			if a.PackageName != "" {
				msg += "; it shows whatever is on screen, launch " + a.PackageName + " first to see that app"
			}
			return Output{Data: SourceResult{Message: msg, PackageName: a.PackageName, Source: src}}, nil
		}}
}

func screenshot() Tool {
	return NewTool[ImageArgs, ScreenshotResult](Tool{Description: "Screenshot as JPEG image content.", Hints: ReadOnly,
		Profiles: []string{HttpRunner, PhysiClaw}, Short: noParams}).withOp(opScreenshot("screenshot"))
}

func takeScreenshot() Tool {
	return NewTool[ImageArgs, ScreenshotResult](Tool{Description: "Take a screenshot of the phone screen (phone-agent seed name). Returns JPEG image content.",
		Hints: ReadOnly, Profiles: []string{PhoneAgent}, Short: noParams}).withOp(opScreenshot("take_screenshot"))
}

func getSource() Tool {
	return NewTool[SourceArgs, SourceResult](Tool{Description: "Get the UI hierarchy of the screen as XML (bounds in pixels).", Hints: ReadOnly,
		Profiles: []string{HttpRunner}, Short: packageName}).withOp(opGetSource())
}
