package tools

import (
	"time"

	"github.com/corral-farm/corral/nodes/agent"
)

// callerLimit is an agent task's deadline as the caller's own time limit when they gave
// timeout_ms (the node's scheduler sets that deadline, with no cause of the agent's), nil when
// the deadline is the tool's default: a model call it cuts short is then told as timeout_ms
// being too short, not as a hung model server.
func callerLimit(t *Task) *agent.TimeLimit {
	if t.TimeoutMS <= 0 {
		return nil
	}
	return &agent.TimeLimit{Arg: "timeout_ms", D: time.Duration(t.TimeoutMS) * time.Millisecond}
}
