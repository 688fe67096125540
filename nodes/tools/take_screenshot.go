package tools

import (
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

func takeScreenshot() Tool {
	return Define[ImageArgs, ScreenshotResult](Tool{Name: "take_screenshot", Description: "Take a screenshot of the phone screen (phone-agent seed name). Returns JPEG image content.",
		Hints: ReadOnly, Timeout: 30 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{PhoneAgent}, Short: noParams,
		Uses: []Ability{Need[device.JPEGScreenshotter]("send the screen as captured")},
	}, screenImage)
}
