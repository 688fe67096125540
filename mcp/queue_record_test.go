package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// queuedID waits until the registry shows a task waiting first in serial's queue, and returns
// its id (a caller has it from get_latest_task, `corral tasks` or the console).
func queuedID(t *testing.T, f *farmtest.Farm, serial string) string {
	t.Helper()
	var id string
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		if len(d.Queue) > 0 {
			id = d.Queue[0]
		}
		return id != ""
	}, "a task waiting in %s's queue", serial)
	return id
}

// get_task_result of a task waiting in a device's queue says so, and its place, rather than
// that there is no record of it; abort_task takes it out.
func TestTaskResultOfAWaitingTaskSaysItWaits(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	holder, waiter, reader := f.Client("holder"), f.Client("waiter"), f.Client("reader")
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": serial}), &held)
	answer := farmtest.Go(t, waiter, "home", map[string]any{"serial": serial, "wait_seconds": 30})
	id := queuedID(t, f, serial)

	res := farmtest.Call(t, reader, "get_task_result", map[string]any{"task_id": id})
	require.True(t, res.IsError)
	assert.Contains(t, farmtest.Text(res), "task "+id+" waits in device "+serial+"'s queue, 1st in line of 1; nothing has run yet")
	assert.True(t, strings.HasPrefix(farmtest.Text(res), "get_task_result refused (busy): "), "a queued task's code: %s", farmtest.Text(res))

	var out mcp.AbortResult
	farmtest.Structured(t, farmtest.MustCall(t, reader, "abort_task", map[string]any{"task_id": id}), &out)
	assert.Equal(t, []string{id}, out.Aborted)
	assert.Contains(t, farmtest.Text((<-answer).Get(t)), "aborted")
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return len(d.Queue) == 0
	}, "the aborted task left the entry's queue")
	farmtest.MustCall(t, holder, "release_device", map[string]any{"lease": held.Lease.Handle})
}

// A task still waiting when its node was lost never started: get_task_result and abort_task
// say so, rather than that no task has its id.
func TestTaskResultOfATaskWaitingAtALostNode(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	holder, waiter, reader := f.Client("holder"), f.Client("waiter"), f.Client("reader")
	farmtest.MustCall(t, holder, "acquire_device", map[string]any{"serial": serial})
	answer := farmtest.Go(t, waiter, "home", map[string]any{"serial": serial, "wait_seconds": 60})
	id := queuedID(t, f, serial)

	f.KillNode("n1")
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOffline
	}, "the lost node's device offline")
	<-answer

	res := farmtest.Call(t, reader, "get_task_result", map[string]any{"task_id": id})
	require.True(t, res.IsError)
	text := farmtest.Text(res)
	assert.Contains(t, text, "no record of task "+id+": it was waiting in device "+serial+"'s queue (1st in line) when the device went offline (node n1 lost")
	assert.Contains(t, text, "never started")

	var out mcp.AbortResult
	farmtest.Structured(t, farmtest.MustCall(t, reader, "abort_task", map[string]any{"task_id": id}), &out)
	assert.Empty(t, out.Aborted)
	assert.True(t, strings.HasPrefix(out.Message, "Task "+id+" was waiting in device "+serial+"'s queue (1st in line) when the device went offline"), out.Message)
	assert.Contains(t, out.Message, "never started, and there is nothing to abort")
}
