package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// abort_task {"task_id": T, "serial": S} where T waits in (or runs on) another device's queue
// aborts nothing, as a node aborts only on the device named: it was answered that T "left the
// queue as the abort came" (or "is already being aborted") while T still waited (ran). It is
// refused, naming where T is; T still waits, and runs when its turn comes.
func TestAbortByIDOnAnotherDeviceSaysWhereTheTaskIs(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	on, named := "n1-p1", "n1-p2"
	runner, waiter, aborter := f.Client("runner"), f.Client("waiter"), f.Client("aborter")

	slept := farmtest.Go(t, runner, "sleep", map[string]any{"serial": on, "seconds": 60})
	var running string
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(on)
		if d.Task != nil && d.Task.Tool == "sleep" {
			running = d.Task.ID
		}
		return running != ""
	}, "sleep running on %s", on)
	waited := farmtest.Go(t, waiter, "home", map[string]any{"serial": on, "wait_seconds": 60})
	queued := queuedID(t, f, on)

	res := farmtest.Call(t, aborter, "abort_task", map[string]any{"task_id": queued, "serial": named})
	text := wantRefused(t, res, "task "+queued+" is not on device "+named+": it waits in device "+on+"'s queue (1st in line, 1 waiting); nothing was aborted",
		`abort_task {"task_id": "`+queued+`"} without serial aborts it where it is`)
	assert.NotContains(t, text, "left")
	res = farmtest.Call(t, aborter, "abort_task", map[string]any{"taskId": running, "serial": named})
	text = wantRefused(t, res, "task "+running+" is not on device "+named+": it runs on device "+on+" (sleep); nothing was aborted")
	assert.NotContains(t, text, "already being aborted")
	res = farmtest.Call(t, aborter, "abort_task", map[string]any{"task_id": "t_nosuchtask", "serial": named})
	wantRefused(t, res, "task t_nosuchtask is not on device "+named+": no task with this id runs or waits there")

	select {
	case a := <-waited:
		t.Fatalf("the queued task ended after the aborts on another device: %s", farmtest.Text(a.Get(t)))
	case a := <-slept:
		t.Fatalf("the running task ended after the aborts on another device: %s", farmtest.Text(a.Get(t)))
	default:
	}
	d, _ := f.Gateway().Client.Device(on)
	require.Contains(t, d.Queue, queued, "the queued task left the queue after the aborts on another device")

	var out mcp.AbortResult
	farmtest.Structured(t, farmtest.MustCall(t, aborter, "abort_task", map[string]any{"task_id": running, "serial": on}), &out)
	assert.Equal(t, []string{running}, out.Aborted)
	assert.Contains(t, farmtest.Text((<-slept).Get(t)), "aborted")
	home := (<-waited).Get(t)
	assert.False(t, home.IsError, "the queued task, its turn come: %s", farmtest.Text(home))
}
