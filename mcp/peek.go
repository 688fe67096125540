package mcp

import "github.com/corral-farm/corral/nodes/tools"

func toolPeek() toolDef {
	return newDeviceTool[tools.ImageArgs, tools.PeekResult]("peek",
		"Look at the screen without changing it (PhysiClaw): a JPEG screenshot with each element's box and id drawn on it, "+
			`and a listing, one element per line: id [kind] "label" [left,top,right,bottom] conf, the bbox relative 0-1. `+
			"Peek before acting to pick a bbox, and after to verify.", readOnly(), maxWidthParam())
}
