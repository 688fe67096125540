package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSetIME() toolDef {
	return newDeviceTool[nodes.IMEArgs, nodes.IMEResult]("set_ime",
		"Set the input method (keyboard).", action(true),
		mcpgo.WithString("ime", mcpgo.Required(), mcpgo.MaxLength(255), mcpgo.Pattern(`^[A-Za-z0-9._/-]+$`),
			mcpgo.Description("Input method id, e.g. com.android.adbkeyboard/.AdbIME")),
	)
}
