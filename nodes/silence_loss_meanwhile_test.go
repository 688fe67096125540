package nodes

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A lease request after a silence, whose caller says it still waits, but the node hears of its
// loss as it asks (here: the farm's verdict comes before the caller's answer): the node has
// revoked its leases for the loss, and its caller was most likely told so just after it
// answered. Granted after the revoke, the lease would be held by no one until its idle expiry;
// it is refused node_lost, and nothing is held.
func TestLeaseRequestAskedAsTheNodeHearsItsLossIsRefused(t *testing.T) {
	r := startLossRig(t)
	r.afterSilence()
	asked := r.answerProbes(t, "c_meanwhile", func() { r.n.declaredLost("", nil) }, broker.CallerWaits)

	req := broker.AcquireRequest{V: broker.WireVersion, Serial: "p1", Holder: broker.Holder{Principal: "late"}, ID: "acq_meanwhile", Probe: "c_meanwhile"}
	a := leaseAnswer(t, r.send(t, broker.EndpointAcquire, req))
	assert.False(t, a.OK, "a lease was granted after the node revoked its leases for a loss heard as its caller was asked")
	assert.Equal(t, broker.CodeNodeLost, a.Code, a.Error)
	assert.Contains(t, a.Error, "as this request's caller was asked whether it still waited")
	assert.Contains(t, a.Error, "no lease of p1 was granted")
	select {
	case id := <-asked:
		assert.Equal(t, broker.AcquireProbeID(req.ID), id, "the node asked about another call")
	default:
		t.Fatal("the node did not ask the caller")
	}
	assert.Empty(t, r.leases(t), "leases held")
	assert.True(t, r.said("heard of its loss as a lease request's caller was asked"), "the node did not say why it refused")
}

// A task after a silence, whose caller says it still waits, but the node hears of its loss as
// it asks: here a second gateway's verdict on a loss the node answered already (its leases are
// revoked, and this verdict revokes nothing more, so nothing ends the task for it). The caller
// was most likely told the node was lost just after it answered: the task does not run, and its
// answer says nothing ran.
func TestTaskAskedAsTheNodeHearsItsLossAgainDoesNotRun(t *testing.T) {
	r := startLossRig(t)
	r.n.declaredLost("", nil) // the first verdict: the node revokes its leases
	r.afterSilence()
	asked := r.answerProbes(t, "c_again", func() { r.n.declaredLost("", nil) }, broker.CallerWaits)

	before := slices.Clone(r.phone.InputLog())
	id := broker.NewTaskID()
	task := broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: "p1", Tool: "tap_xy", Args: json.RawMessage(`{"x":0.5,"y":0.5}`),
		Holder: broker.Holder{Principal: "second"}, Probe: "c_again"}
	var res broker.TaskResult
	select {
	case m := <-r.send(t, broker.EndpointTask, task):
		require.NoError(t, json.Unmarshal(m.Data, &res), string(m.Data))
	case <-time.After(15 * time.Second):
		t.Fatal("no answer to the task")
	}
	select {
	case got := <-asked:
		assert.Equal(t, id, got, "the node asked about another call")
	default:
		t.Fatal("the node did not ask the task's caller")
	}
	assert.Equal(t, broker.OutcomeRefused, res.Outcome, "%s: %s", res.Code, res.Error)
	assert.Equal(t, broker.CodeNodeLost, res.Code, res.Error) // the node was lost: its caller did not go
	assert.Contains(t, res.Error, "tap_xy did not run")
	assert.True(t, res.Started.IsZero(), "the answer shows a start: %s", res.Started)
	assert.Equal(t, before, r.phone.InputLog(), "what reached the phone")
}
