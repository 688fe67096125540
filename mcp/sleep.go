package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSleep() toolDef {
	return newDeviceTool[nodes.SleepArgs, nodes.SleepResult]("sleep",
		"Wait on the device (it stays yours and busy). Reports progress; abort_task ends it.", readOnly(),
		mcpgo.WithNumber("seconds", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(3600), mcpgo.Description("Seconds to wait")),
	)
}
