package nodes_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// The task a node was running when it was killed gets a record when the node comes back, with
// its holder, so that get_task_result does not answer "no such task" for a call that ran:
// failed, code interrupted; or, when the farm declared the node lost meanwhile, lost
// (node_lost) at the verdict, as its caller was told.
func TestTaskRunningAtACrashIsRecordedInterrupted(t *testing.T) {
	for _, reap := range []bool{false, true} {
		t.Run(map[bool]string{false: "crash", true: "crash declared lost"}[reap], func(t *testing.T) {
			const node, serial = "n1", "n1-p1"
			r := newRestartRig(t, reap)
			first := r.startNode(node, serial)
			r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })

			id := broker.NewTaskID()
			ctx, cancel := context.WithCancel(r.ctx)
			defer cancel()
			go func() {
				_, _ = r.gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "sleep",
					Args: json.RawMessage(`{"seconds":60}`), Holder: broker.Holder{Principal: "alice", Client: "ci"}}, nil)
			}()
			running := r.waitDevice(serial, "running the sleep", func(d broker.DeviceEntry) bool { return d.Task != nil && d.Task.ID == id })
			assert.Equal(t, "sleep", running.Task.Tool)
			first.Kill()
			var verdict time.Time
			if reap {
				verdict = r.waitDevice(serial, "offline", func(d broker.DeviceEntry) bool { return d.State == broker.StateOffline }).Updated
			}
			_, err := r.gw.TaskRecord(r.ctx, id)
			require.Error(t, err, "a record before the node came back")

			r.startNode(node, serial)
			var rec broker.TaskResult
			farmtest.Eventually(t, 15*time.Second, func() bool {
				rec, err = r.gw.TaskRecord(r.ctx, id)
				return err == nil
			}, "the record of %s", id)
			if reap { // as its caller was told at the verdict (QA: failed/interrupted, finished at the restart)
				assert.Equal(t, broker.OutcomeLost, rec.Outcome, "%+v", rec)
				assert.Equal(t, broker.CodeNodeLost, rec.Code, "%+v", rec)
				assert.True(t, rec.Finished.Equal(verdict), "finished %s, not at the verdict %s", rec.Finished, verdict)
			} else {
				assert.Equal(t, broker.OutcomeFailed, rec.Outcome)
				assert.Equal(t, broker.CodeInterrupted, rec.Code)
			}
			assert.Equal(t, broker.Holder{Principal: "alice", Client: "ci"}, rec.Holder)
			assert.Equal(t, "sleep", rec.Tool)
			assert.Contains(t, rec.Error, "peek")
			back := r.waitDevice(serial, "online again", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
			assert.Nil(t, back.Task, "the device runs nothing after the restart")
		})
	}
}

// A task cut off by a clean shutdown is recorded by the node as it stops, not at its restart:
// `corral up` and `corral node` cancel the context they started the node with on SIGTERM
// before their deferred Stop runs, and the node must still write the record and show its device
// offline. The record says the node was shutting down (not that it crashed or was killed),
// finished when the node stopped it; its caller is told the same, and the restart adds nothing.
func TestTaskRunningAtAGracefulStopIsRecordedAsItStops(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	r := newRestartRig(t, false)
	signalled, signal := context.WithCancel(r.ctx)
	defer signal()
	first := r.startNodeWith(signalled, node, serial)
	r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })

	id := broker.NewTaskID()
	answered := make(chan broker.TaskResult, 1)
	go func() {
		res, err := r.gw.Run(r.ctx, broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: "sleep",
			Args: json.RawMessage(`{"seconds":60}`), Holder: broker.Holder{Principal: "alice", Client: "ci"}}, nil)
		if err != nil {
			res.Error = err.Error()
		}
		answered <- res
	}()
	r.waitDevice(serial, "running the sleep", func(d broker.DeviceEntry) bool { return d.Task != nil && d.Task.ID == id })

	signal() // SIGTERM: the process's context ends first, then its deferred Stop runs
	stopping := time.Now()
	first.Stop()
	stopped := time.Now()

	rec, err := r.gw.TaskRecord(r.ctx, id)
	require.NoError(t, err, "the record of the task the node stopped, as Stop returns")
	assert.Equal(t, broker.OutcomeFailed, rec.Outcome, "%+v", rec)
	assert.Equal(t, broker.CodeInterrupted, rec.Code, "%+v", rec)
	assert.Contains(t, rec.Error, "node n1 is shutting down")
	assert.Contains(t, rec.Error, "peek")
	assert.NotContains(t, rec.Error, "crashed")
	assert.Equal(t, broker.Holder{Principal: "alice", Client: "ci"}, rec.Holder)
	assert.False(t, rec.Finished.Before(stopping) || rec.Finished.After(stopped),
		"finished %s, not when the node stopped it (between %s and %s)", rec.Finished, stopping, stopped)

	select {
	case res := <-answered:
		assert.Equal(t, broker.CodeInterrupted, res.Code, "the caller's answer: %+v", res)
	case <-time.After(15 * time.Second):
		t.Fatal("the caller was never answered")
	}
	gone := r.waitDevice(serial, "offline", func(d broker.DeviceEntry) bool { return d.State == broker.StateOffline })
	assert.Nil(t, gone.Task, "the registry still shows the task running on the stopped node")

	r.startNode(node, serial)
	r.waitDevice(serial, "online again", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	again, err := r.gw.TaskRecord(r.ctx, id)
	require.NoError(t, err)
	assert.Equal(t, rec.Finished.UnixMilli(), again.Finished.UnixMilli(), "the restart recorded the task again: %+v", again)
	assert.NotContains(t, again.Error, "crashed")
}
