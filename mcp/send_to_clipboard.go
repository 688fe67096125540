package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSendToClipboard() toolDef {
	return newDeviceTool[nodes.ClipboardArgs, nodes.ClipboardResult]("send_to_clipboard",
		"Put text on the phone's clipboard (PhysiClaw): then long_press the field and tap Paste, faster than typing.", action(true),
		mcpgo.WithString("text", mcpgo.Required(), mcpgo.MinLength(1), mcpgo.MaxLength(nodes.MaxInputBytes),
			mcpgo.Description("Text to copy (UTF-8, at most 10,000 bytes)")),
	)
}
