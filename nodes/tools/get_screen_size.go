package tools

import (
	"context"
	"fmt"
	"time"
)

// ScreenSizeResult is get_screen_size's structured result (HttpRunner seed).
type ScreenSizeResult struct {
	Width   int    `json:"width" jsonschema:"Screen width in pixels"`
	Height  int    `json:"height" jsonschema:"Screen height in pixels"`
	Message string `json:"message" jsonschema:"Formatted message with the screen size"`
}

func getScreenSize() Tool {
	return Define[NoArgs, ScreenSizeResult](Tool{Name: "get_screen_size", Description: "Get the device's screen size in pixels.",
		Hints: ReadOnly, Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner}, Short: noParams,
	}, func(ctx context.Context, t *Task, _ NoArgs) (Output, error) {
		s, err := t.Driver.ScreenSize(ctx)
		if err != nil {
			return Output{}, err
		}
		return Output{Data: ScreenSizeResult{Width: s.Width, Height: s.Height,
			Message: fmt.Sprintf("screen size: %dx%d pixels", s.Width, s.Height)}}, nil
	})
}
