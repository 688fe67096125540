package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolSleep() toolDef {
	return newDeviceTool[tools.SleepArgs, tools.SleepResult]("sleep",
		"Wait on the device (it stays yours and busy). Reports progress; abort_task ends it.", readOnly(),
		mcpgo.WithNumber("seconds", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(3600), mcpgo.Description("Seconds to wait")),
	)
}
