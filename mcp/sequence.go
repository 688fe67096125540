package mcp

import (
	"fmt"

	"github.com/corral-farm/corral/nodes/tools"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// sequenceStepSchema is the schema of one sequence step.
func sequenceStepSchema(description string) map[string]any {
	return map[string]any{
		"type":        "object",
		"description": description,
		"properties": map[string]any{
			"tool_name": map[string]any{"type": "string", "enum": tools.SequenceTools(), "description": "The step's tool"},
			"args":      map[string]any{"type": "object", "description": "The tool's own arguments, as the tool takes them (no serial or lease)"},
			"arg": map[string]any{"description": "PhysiClaw form instead of args: the bbox array for tap, double_tap and long_press; " +
				"the text for send_to_clipboard and input; an object of arguments otherwise (swipe: {bbox, direction, size, speed})"},
		},
		"required":             []string{"tool_name"},
		"additionalProperties": false,
	}
}

func toolSequence() toolDef {
	opts := []mcpgo.ToolOption{
		mcpgo.WithArray("steps", mcpgo.MinItems(1), mcpgo.MaxItems(tools.MaxSequenceSteps),
			mcpgo.Items(sequenceStepSchema("One step: {tool_name, args} or {tool_name, arg}")),
			mcpgo.Description("1 to 5 steps, run in order")),
	}
	for i := 1; i <= tools.MaxSequenceSteps; i++ {
		opts = append(opts, mcpgo.WithObject(fmt.Sprintf("step%d", i),
			mcpgo.Description(fmt.Sprintf("PhysiClaw form: step %d as {tool_name, arg}, instead of steps", i))))
	}
	return newDeviceTool[tools.SequenceArgs, tools.SequenceResult]("sequence",
		"Run up to 5 action steps in one call, as one task on the device: nobody else's call runs between them. For "+
			"deterministic flows (tap, tap, tap to open an app; paste and send). Every step is checked before any runs; "+
			"the first failure stops the sequence, and earlier steps are not undone. Give steps, a list of {tool_name, args}, "+
			"or step1..step5 as PhysiClaw does. Don't batch across a dialog that may or may not appear: peek between.", action(false),
		opts...)
}
