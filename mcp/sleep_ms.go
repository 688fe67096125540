package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSleepMS() toolDef {
	return newDeviceTool[nodes.SleepMSArgs, nodes.SleepMSResult]("sleep_ms",
		"Wait a number of milliseconds on the device, as sleep does.", readOnly(),
		mcpgo.WithInteger("milliseconds", mcpgo.Required(), mcpgo.Min(0), mcpgo.Max(3600000), mcpgo.Description("Milliseconds to wait")),
	)
}
