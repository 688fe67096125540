package agent

import (
	"fmt"
	"time"
)

// TimeLimit is the cause (context.WithTimeoutCause) a tool gives the task's context when its
// deadline is the time limit the task's caller chose (run_agent_task's timeoutMs; Options.Limit
// when the node applied it, a tool's timeout_ms): a model call that this deadline cut short is
// told as the caller's limit being too short, with a larger one as the remedy, not as a model
// server that does not answer.
type TimeLimit struct {
	Arg string        // the argument that set it, as the caller wrote it: timeoutMs, timeout_ms
	D   time.Duration // the limit
}

func (l TimeLimit) Error() string {
	return fmt.Sprintf("the task's %s (%s) passed", l.Arg, l.D)
}
