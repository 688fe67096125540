package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolSendToClipboard() toolDef {
	return newDeviceTool[tools.ClipboardArgs, tools.ClipboardResult]("send_to_clipboard",
		"Put text on the phone's clipboard (PhysiClaw): then long_press the field and tap Paste, faster than typing.", action(true),
		mcpgo.WithString("text", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(tools.MaxInputBytes),
			mcpgo.Description("Text to copy (UTF-8, at most 10,000 bytes)")),
	)
}
