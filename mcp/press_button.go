package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolPressButton() toolDef {
	return newDeviceTool[tools.PressButtonArgs, tools.ButtonResult]("press_button",
		"Press a device button (iOS: HOME, VOLUME_UP, VOLUME_DOWN, POWER only).", action(false),
		mcpgo.WithString("button", mcpgo.Required(), mcpgo.Enum(tools.Buttons...), mcpgo.Description("Button name")),
	)
}
