package tools_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// QA: run_agent_task took timeoutMs: 0 and maxSteps: 0 for their defaults, though the schema's
// minimums are 1000 and 1 and -1 was refused: the fields were plain numbers, whose 0 reads as
// absent. A 0 given is bad input saying to leave the argument out for the default; the model is
// never asked.
func TestAgentTaskRefusesAZeroBudget(t *testing.T) {
	m, _ := silentModel(t)
	// Without the check the task runs, waiting on the silent model: a context bounds it.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	for _, tc := range []struct{ args, want string }{
		{`{"goal":"open Settings","timeoutMs":0}`, "leave timeoutMs out for the default, 20 min"},
		{`{"goal":"open Settings","maxSteps":0}`, "leave maxSteps out for the default, 10"},
	} {
		_, err := agentOp(t, ctx, m, nil, "run_agent_task", tc.args)
		var oe *tools.OpError
		if !errors.As(err, &oe) || oe.Code != broker.CodeBadInput {
			t.Fatalf("%s: %v, want bad input", tc.args, err)
		}
		if !strings.Contains(err.Error(), "got 0") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.args, err)
		}
	}
}
