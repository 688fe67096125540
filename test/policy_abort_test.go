package test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A running task's id is no secret (the console and list_available_devices show it), so
// abort_task by task_id gets the holder rule abort_task by serial has: alpha, which shares the
// device's tag, cannot abort beta's task by its id, with all, or by taskId; abort_task without
// arguments aborts only alpha's own; beta aborts its own by id, and an operator anyone's.
func TestPolicyAbortByTaskIDOnlyByHolderOrOperator(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	gw, url := policyGatewayClient(t, f, mcp.Options{})
	alpha := mustAuthClient(t, url, "alpha-agent", alphaToken)
	beta := mustAuthClient(t, url, "beta-agent", betaToken)
	ops := mustAuthClient(t, url, "ops-console", opsToken)

	held := acquire(t, beta, args("serial", "n1-p1"))
	sleeping := farmtest.Go(t, beta, "sleep", args("serial", "n1-p1", "lease", held.Lease.Handle, "seconds", 60))
	id := runningTask(t, gw, "n1-p1")

	for _, a := range []map[string]any{
		args("task_id", id), args("task_id", id, "all", true), args("taskId", id),
	} {
		res := farmtest.Call(t, alpha, "abort_task", a)
		require.True(t, res.IsError, "alpha aborted beta's task with %v: %s", a, farmtest.Text(res))
		assert.Contains(t, farmtest.Text(res), `principal "alpha" may not abort the task of device n1-p1, which principal "beta" holds`)
		assert.NotContains(t, farmtest.Text(res), held.Lease.Handle, "the refusal tells beta's lease handle")
	}
	res := farmtest.MustCall(t, alpha, "abort_task", args())
	assert.Contains(t, farmtest.Text(res), "No task is currently running.")
	res = farmtest.MustCall(t, alpha, "abort_task", args("all", true))
	assert.Contains(t, farmtest.Text(res), "No task is currently running.")
	select {
	case a := <-sleeping:
		t.Fatalf("beta's sleep ended after alpha's refused aborts: %s", farmtest.Text(a.Get(t)))
	default:
	}

	res = farmtest.MustCall(t, beta, "abort_task", args("task_id", id))
	assert.Contains(t, farmtest.Text(res), "Aborted 1 task(s)")
	assert.True(t, (<-sleeping).Get(t).IsError, "beta's aborted sleep succeeded")
	farmtest.MustCall(t, beta, "release_device", args("serial", "n1-p1", "lease", held.Lease.Handle))

	// A task without a lease: its holder is the task's.
	sleeping = farmtest.Go(t, beta, "sleep", args("serial", "n1-p2", "seconds", 60))
	id = runningTask(t, gw, "n1-p2")
	res = farmtest.Call(t, alpha, "abort_task", args("task_id", id))
	require.True(t, res.IsError, "alpha aborted beta's leaseless task: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), `principal "alpha" may not abort the task of device n1-p2, which principal "beta" holds`)
	res = farmtest.MustCall(t, ops, "abort_task", args("task_id", id))
	assert.Contains(t, farmtest.Text(res), "Aborted 1 task(s)")
	assert.True(t, (<-sleeping).Get(t).IsError, "the operator's aborted sleep succeeded")

	// alpha aborts its own by id.
	sleeping = farmtest.Go(t, alpha, "sleep", args("serial", "n1-p3", "seconds", 60))
	id = runningTask(t, gw, "n1-p3")
	res = farmtest.MustCall(t, alpha, "abort_task", args("task_id", id))
	assert.Contains(t, farmtest.Text(res), "Aborted 1 task(s)")
	assert.True(t, (<-sleeping).Get(t).IsError, "alpha's aborted sleep succeeded")
}

// runningTask waits until the gateway's registry (gw) shows serial running a task and
// returns its id.
func runningTask(t *testing.T, gw *broker.Client, serial string) string {
	t.Helper()
	var id string
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := gw.Device(serial)
		if d.Task != nil {
			id = d.Task.ID
		}
		return id != ""
	}, "%s runs a task the gateway shows", serial)
	return id
}
