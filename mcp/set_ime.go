package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolSetIME() toolDef {
	return newDeviceTool[tools.IMEArgs, tools.IMEResult]("set_ime",
		"Set the input method (keyboard).", action(true),
		mcpgo.WithString("ime", mcpgo.Required(), mcpgo.MaxLength(255), mcpgo.Pattern(`^[A-Za-z0-9._/-]+$`),
			mcpgo.Description("Input method id, e.g. com.android.adbkeyboard/.AdbIME")),
	)
}
