package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolSleepMS() toolDef {
	return newDeviceTool[tools.SleepMSArgs, tools.SleepMSResult]("sleep_ms",
		"Wait a number of milliseconds on the device, as sleep does.", readOnly(),
		mcpgo.WithInteger("milliseconds", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(3600000), mcpgo.Description("Milliseconds to wait")),
	)
}
