package mcp

import (
	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func toolSleepRandom() toolDef {
	return newDeviceTool[tools.SleepRandomArgs, tools.SleepRandomResult]("sleep_random",
		"Wait a random time, as sleep does.", readOnly(),
		mcpgo.WithArray("params", mcpgo.Required(), mcpgo.MinItems(1), mcpgo.MaxItems(30), mcpgo.WithNumberItems(mcpgo.Min(0), mcpgo.Max(3600)),
			mcpgo.Description("Seconds: [s], [min, max], or [min, max, weight, ...] triples")),
	)
}
