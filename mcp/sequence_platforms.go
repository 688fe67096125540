package mcp

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/corral-farm/corral/nodes/tools"
)

// toolSequence is the tool whose refusals depend on its steps' tools.
const toolSequence = "sequence"

// ablePlatforms returns the platforms whose drivers can run tool with args, sorted. For a
// sequence they are those that can run every one of its steps: a device refuses a sequence for
// a step its driver lacks, so naming devices that have sequence but not that step would send
// the caller to another refusal.
func (g *Gateway) ablePlatforms(tool string, args json.RawMessage) []string {
	can := tools.ToolPlatforms(g.opts.Platforms, tool)
	if tool != toolSequence {
		return can
	}
	var seq tools.SequenceArgs
	if err := json.Unmarshal(args, &seq); err != nil {
		return can // the node checked them; without them, what sequence itself needs
	}
	for _, s := range seq.Steps {
		step := tools.ToolPlatforms(g.opts.Platforms, strings.ToLower(s.ToolName))
		can = slices.DeleteFunc(can, func(p string) bool { return !slices.Contains(step, p) })
	}
	return can
}
