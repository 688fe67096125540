package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolScreenshot() toolDef {
	return newDeviceTool[tools.ImageArgs, tools.ScreenshotResult]("screenshot",
		"Screenshot as JPEG image content.", readOnly(), maxWidthParam())
}

func toolTakeScreenshot() toolDef {
	return newDeviceTool[tools.ImageArgs, tools.ScreenshotResult]("take_screenshot",
		"Take a screenshot of the phone screen (phone-agent seed name). Returns JPEG image content.", readOnly(), maxWidthParam())
}

// maxWidthParam is the optional max_width of the tools that answer with an image.
func maxWidthParam() mcpgo.ToolOption {
	return mcpgo.WithInteger("max_width", mcpgo.Min(0), mcpgo.Description("Scale down to this width in px"))
}
