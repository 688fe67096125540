package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSleep() toolDef {
	return newDeviceTool[nodes.SleepArgs, nodes.SleepResult]("sleep",
		"Wait a number of seconds on the device: the wait runs as a task, so the device stays yours (and busy) until it ends. Reports progress about once a second; abort_task ends it early.", readOnly(),
		mcpgo.WithNumber("seconds", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(3600), mcpgo.Description("Seconds to wait (at most 3600)")),
	)
}
