package nodes

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A loss verdict heard in the moment between a task's question (its caller said it still
// waits, and no loss had come) and its driver getting it: the task does not start. Its caller
// was most likely told the node was lost; its answer says so, and that nothing ran. The verdict
// is a second gateway's, which revokes nothing: only the loss itself can stop the start.
func TestLossHeardAsATaskIsHandedToItsDriverRunsNothing(t *testing.T) {
	r := startRepeatRig(t)
	asked := r.answerProbes(t, "c_handed", nil, broker.CallerWaits)
	var verdicts atomic.Int32
	r.n.silence.handedBack = func() { verdicts.Add(1); r.secondVerdict() } // on the device's worker, before the driver
	before := slices.Clone(r.p2.InputLog())

	res := r.tapP2(t, "c_handed")
	require.NotEmpty(t, asked, "the node did not ask the task's caller")
	require.Equal(t, int32(1), verdicts.Load(), "the verdict did not come between the question and the start")
	require.True(t, r.said("heard again of the loss this node answered already"), "the second verdict was not taken as a repeat of the first")
	assert.Equal(t, broker.OutcomeRefused, res.Outcome, "%s: %s", res.Code, res.Error)
	assert.Equal(t, broker.CodeNodeLost, res.Code, res.Error)
	assert.Contains(t, res.Error, "tap_xy did not run")
	assert.True(t, res.Started.IsZero(), "the answer shows a start: %s", res.Started)
	assert.Equal(t, before, r.p2.InputLog(), "what reached p2")
}
