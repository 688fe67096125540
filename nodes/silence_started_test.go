package nodes

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A task whose caller was asked, and which then started, is held no more: a repeated verdict
// (a second gateway's, which revokes nothing) heard as it runs leaves it running, as it leaves
// a task that was never asked. Only a task whose start is still pending ends on it.
func TestRepeatedVerdictLeavesAnAskedTaskThatRuns(t *testing.T) {
	r := startRepeatRig(t)
	asked := r.answerProbes(t, "c_running", nil, broker.CallerWaits)
	r.p2.SetDelay(time.Second) // the tap runs a second: long enough for the verdict to come as it runs

	task := broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: "p2", Tool: "tap_xy", Args: json.RawMessage(`{"x":0.5,"y":0.5}`),
		Holder: broker.Holder{Principal: "second"}, Probe: "c_running"}
	answer := r.send(t, broker.EndpointTask, task)
	require.Eventually(t, func() bool { return len(asked) > 0 && r.p2.InFlight() > 0 }, 15*time.Second, time.Millisecond,
		"the asked tap did not start on p2")
	r.secondVerdict()
	require.True(t, r.said("heard again of the loss this node answered already"), "the second verdict was not taken as a repeat of the first")

	var res broker.TaskResult
	select {
	case m := <-answer:
		require.NoError(t, json.Unmarshal(m.Data, &res), string(m.Data))
	case <-time.After(15 * time.Second):
		t.Fatal("no answer to the tap")
	}
	assert.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%s: %s", res.Code, res.Error)
	assert.False(t, res.Started.IsZero(), "the answer shows no start")
}
