package steps

import (
	"fmt"
	"strings"

	"github.com/corral-farm/corral/nodes/tools"
)

// unchecked names the plan steps whose last action has no expect ("step 1, step 3"; "" when
// none): the agent looked at the screen after it and found no label distinctive enough to
// check, and picks none rather than a generic one, so the export says so instead.
func unchecked(actions []tools.AgentAction) string {
	var steps []string
	named := map[int]bool{}
	for i, a := range actions {
		last := i == len(actions)-1 || actions[i+1].Step != a.Step
		if last && strings.TrimSpace(a.ExpectText) == "" && !named[a.Step] {
			named[a.Step] = true
			steps = append(steps, fmt.Sprintf("step %d", a.Step))
		}
	}
	return strings.Join(steps, ", ")
}
