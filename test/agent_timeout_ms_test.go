package test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// QA Q9 M1: an agent task that the caller's timeout_ms (the device tools' deadline, which the
// node's scheduler applies) ended while it waited for the model was told to check for a hung
// model server, "more time will not help", where timeoutMs said "pass a larger timeoutMs".
// timeout_ms is the caller's limit too, and the error names it.
func TestAgentTimeoutMsIsTheCallersLimit(t *testing.T) {
	f, _, serial := agentFarm(t,
		call("plan", `{"steps":[{"title":"Think"}]}`),
		modelsim.Turn{Delay: time.Minute, Text: "too late"},
	)
	end := failedAgentTask(t, f, f.Client("agent"), args("serial", serial, "goal", "think", "timeout_ms", 15000), "timed_out", "aborted",
		"waiting for the model", "when the task's timeout_ms of 15s ran out", "pass a larger timeout_ms")
	for _, wrong := range []string{"more time will not help", "check that the model server is up"} {
		if strings.Contains(end.Error, wrong) {
			t.Errorf("error %q: %q is for the node's own deadline, not the caller's timeout_ms", end.Error, wrong)
		}
	}
}
