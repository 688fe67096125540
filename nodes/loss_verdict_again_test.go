package nodes

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
)

// repeatRig is a lossRig whose node answered a first loss verdict before a second phone, p2,
// came: a second gateway's verdict on that loss revokes nothing (nothing the node had then was
// granted since), so nothing but the verdict itself can end a task of p2's.
type repeatRig struct {
	*lossRig
	p2 *sim.Phone
}

func startRepeatRig(t *testing.T) *repeatRig {
	t.Helper()
	r := &repeatRig{lossRig: startLossRig(t), p2: sim.New("p2")}
	r.n.declaredLost("", nil) // the first verdict: the node revokes its leases
	t.Cleanup(func() { _ = r.p2.Close() })
	r.n.AddDriver(r.p2)
	require.Eventually(t, func() bool {
		e, err := r.n.cfg.Stores.Registry.Get(t.Context(), broker.RegistryKey("n1", "p2"))
		var d broker.DeviceEntry
		return err == nil && json.Unmarshal(e.Value(), &d) == nil && d.State == broker.StateOnline
	}, 30*time.Second, 5*time.Millisecond, "p2 online")
	r.afterSilence()
	return r
}

// secondVerdict is a second gateway's verdict on the loss the node answered: it comes within
// LostAfter of the first, however long the set-up took.
func (r *repeatRig) secondVerdict() {
	r.n.mu.Lock()
	r.n.lostAt = time.Now()
	r.n.mu.Unlock()
	r.n.declaredLost("", nil)
}

// tapP2 sends a tap on p2 after the silence, its caller asked on token, and waits for its answer.
func (r *repeatRig) tapP2(t *testing.T, token string) broker.TaskResult {
	t.Helper()
	task := broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: "p2", Tool: "tap_xy", Args: json.RawMessage(`{"x":0.5,"y":0.5}`),
		Holder: broker.Holder{Principal: "second"}, Probe: token}
	var res broker.TaskResult
	select {
	case m := <-r.send(t, broker.EndpointTask, task):
		require.NoError(t, json.Unmarshal(m.Data, &res), string(m.Data))
	case <-time.After(15 * time.Second):
		t.Fatal("no answer to the task")
	}
	return res
}

// A second gateway's verdict heard as a task's caller is asked (it says it still waits, but
// was most likely told the node was lost just after): the task does not run, and its answer
// says the node was lost, not that its caller went, though this verdict revokes nothing.
func TestTaskAskedAsASecondVerdictComesSaysNodeLost(t *testing.T) {
	r := startRepeatRig(t)
	asked := r.answerProbes(t, "c_second", r.secondVerdict, broker.CallerWaits)
	before := slices.Clone(r.p2.InputLog())

	res := r.tapP2(t, "c_second")
	require.NotEmpty(t, asked, "the node did not ask the task's caller")
	// The verdict ends the held task before it logs its decision: the answer may come first.
	require.Eventually(t, func() bool { return r.said("heard again of the loss this node answered already") }, 15*time.Second, 5*time.Millisecond,
		"the second verdict was not taken as a repeat of the first")
	assert.Equal(t, broker.OutcomeRefused, res.Outcome, "%s: %s", res.Code, res.Error)
	assert.Equal(t, broker.CodeNodeLost, res.Code, res.Error)
	assert.Contains(t, res.Error, "was declared lost by the farm as this task was about to start")
	assert.Contains(t, res.Error, "tap_xy did not run")
	assert.True(t, res.Started.IsZero(), "the answer shows a start: %s", res.Started)
	assert.Equal(t, before, r.p2.InputLog(), "what reached p2")
}
