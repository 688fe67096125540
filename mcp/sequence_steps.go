package mcp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/nodes/tools"
)

// stepTool is a tool a sequence's step names, with the step's number from 1.
type stepTool struct {
	name   string
	number int
}

// stepTools reads the step tools a sequence's raw arguments name, in either form (steps, or
// step1 to step5), as the node will read them: trimmed and lower-case. Only tools that can be
// steps are returned; a step of another tool, or of a name that is not a string, is refused by
// the arguments' own check, which says nothing of any tool's arguments.
func stepTools(args map[string]any) []stepTool {
	var out []stepTool
	steps := tools.SequenceTools()
	add := func(number int, step any) {
		m, _ := step.(map[string]any)
		name, _ := m["tool_name"].(string)
		name = strings.ToLower(strings.TrimSpace(name))
		if slices.Contains(steps, name) {
			out = append(out, stepTool{name: name, number: number})
		}
	}
	list, _ := args["steps"].([]any)
	for i, s := range list {
		add(i+1, s)
	}
	for n := 1; n <= tools.MaxSequenceSteps; n++ {
		add(n, args[fmt.Sprintf("step%d", n)])
	}
	return out
}
