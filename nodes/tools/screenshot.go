package tools

import "time"

func screenshot() Tool {
	return Define[ImageArgs, ScreenshotResult](Tool{Name: "screenshot", Description: "Screenshot as JPEG image content.", Hints: ReadOnly,
		Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner, PhysiClaw}, Short: noParams,
	}, screenImage)
}
