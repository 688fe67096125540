package tools

import (
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

func screenshot() Tool {
	return Define[ImageArgs, ScreenshotResult](Tool{Name: "screenshot", Description: "Screenshot as JPEG image content.", Hints: ReadOnly,
		Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{HttpRunner, PhysiClaw}, Short: noParams,
		Uses: []Ability{Need[device.JPEGScreenshotter]("send the screen as captured")},
	}, sayCameraFrame(screenImage))
}
