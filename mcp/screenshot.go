package mcp

import "github.com/corral-farm/corral/nodes"

func toolScreenshot() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.ScreenshotResult]("screenshot",
		"Screenshot as JPEG image content.", readOnly())
}

func toolTakeScreenshot() toolDef {
	return newDeviceTool[nodes.NoArgs, nodes.ScreenshotResult]("take_screenshot",
		"Take a screenshot of the phone screen (phone-agent seed name). Returns JPEG image content.", readOnly())
}
