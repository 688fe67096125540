package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/nodes"
)

func toolSleepRandom() toolDef {
	return newDeviceTool[nodes.SleepRandomArgs, nodes.SleepRandomResult]("sleep_random",
		"Wait a random time on the device, as sleep does. params in seconds: [s] waits s; [min, max] a uniformly random "+
			"time between them; [min1, max1, weight1, min2, max2, weight2, ...] picks a range by weight, then a time in it.", readOnly(),
		mcpgo.WithArray("params", mcpgo.Required(), mcpgo.MinItems(1), mcpgo.MaxItems(30), mcpgo.WithNumberItems(mcpgo.Min(0), mcpgo.Max(3600)),
			mcpgo.Description("Random parameters in seconds: [s], [min, max], or [min, max, weight, ...] triples")),
	)
}
