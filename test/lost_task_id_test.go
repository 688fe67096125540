package test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A call whose node dies under it (kill -9) is answered "lost" with its task's id and how to
// learn its end; once the node is back, get_task_result finds the record the node writes of
// the task it was running (lost, as the farm declared the node lost). A call the gateway refuses itself, the device being
// offline, reached no node: it gets no task id, since no record will ever have one. And
// get_task_result of an id with no record says what may have become of it, without calling
// it running.
func TestLostCallNamesItsTaskAndGatewayRefusalsNone(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1})
	const victim = "n2-p1"
	c := f.Client("agent")
	done := farmtest.Go(t, c, "sleep", args("serial", victim, "seconds", 60))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(victim)
		return d.State == broker.StateBusy && d.Task != nil
	}, "the sleep runs on n2")
	f.KillNode("n2")
	var lost string
	select {
	case answer := <-done:
		res := answer.Get(t)
		require.True(t, res.IsError)
		lost = farmtest.Text(res)
	case <-time.After(20 * time.Second):
		t.Fatal("the caller has not heard of its lost node within 20 s")
	}
	contains(t, lost, "lost", "get_task_result")
	id := taskID(t, lost)

	// Its device is offline now: the gateway refuses a call itself, and hands out no id.
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(victim)
		return d.State == broker.StateOffline && !slices.Contains(f.Gateway().Client.Nodes(), "n2")
	}, "n2's device offline")
	refused := farmtest.Call(t, c, "tap_xy", args("serial", victim, "x", 0.5, "y", 0.5))
	require.True(t, refused.IsError)
	contains(t, farmtest.Text(refused), "refused", "offline")
	assert.NotContains(t, farmtest.Text(refused), "[task ", "a refusal no node saw hands out a task id no record will have")

	// Before the node is back, the task has no record; it is not shown running on a device
	// whose node is gone, and the answer says when to ask again.
	orphan := farmtest.Call(t, c, "get_task_result", args("task_id", id))
	require.True(t, orphan.IsError, farmtest.Text(orphan))
	contains(t, farmtest.Text(orphan), "no record of task "+id, "was running sleep on "+victim, "offline", "comes back")
	// An id no task had: what may have become of it, without calling it running.
	none := farmtest.Call(t, c, "get_task_result", args("task_id", "t_nosuchtask000000"))
	require.True(t, none.IsError, farmtest.Text(none))
	contains(t, farmtest.Text(none), "no record of task t_nosuchtask000000", "no device shows it running", "lost before recording it", "no task has this id")
	assert.NotContains(t, farmtest.Text(none), "still running")

	f.StartNode("n2", 1)
	var rec mcp.TaskRecordResult
	farmtest.Eventually(t, 20*time.Second, func() bool {
		res := farmtest.Call(t, c, "get_task_result", args("task_id", id))
		if res.IsError {
			return false
		}
		farmtest.Structured(t, res, &rec)
		return true
	}, "the record of %s once n2 is back", id)
	// As its caller was told, when the farm declared n2 lost (QA: failed, interrupted, finished at the restart).
	assert.Equal(t, broker.OutcomeLost, rec.Status)
	assert.Equal(t, broker.CodeNodeLost, rec.Code)
	assert.Equal(t, "sleep", rec.Tool)
}
