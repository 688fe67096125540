package mcp_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// Every abort that finds a running task past its deadline, its driver still returning, says
// the task had timed out already, in abort_task's words: abort_task {} of the caller's own
// agent task, abort_task by a lease group's handle and emergency_stop. They left such a task
// out of those aborted without a word, answering "No task is currently running." or
// "0 task(s) aborted" while a task ran. (`corral abort` is abort_task by serial, which
// TestAbortAfterTheDeadlineSaysTimedOut covers.)
func TestEveryAbortSaysATaskTimedOutAlready(t *testing.T) {
	srv := modelsim.New(thinkingLong...)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 4, Grace: 8 * time.Second, Model: m, Quiet: true})
	c := f.Client("agent")
	grp := acquireGroup(t, c, map[string]any{"count": 2, "platform": "android"})
	member := grp.Members[0].Serial
	var free []string
	for _, d := range f.Devices() {
		if !slices.ContainsFunc(grp.Members, func(m mcp.MemberInfo) bool { return m.Serial == d.Serial }) {
			free = append(free, d.Serial)
		}
	}
	require.Len(t, free, 2)
	own, stop := free[0], free[1]
	for _, serial := range []string{member, own, stop} {
		f.Phone(serial).HangNext() // the driver ignores its deadline, until Grace gives up on it
	}

	// Each task's deadline passes while its driver still hangs.
	var calls []<-chan farmtest.Answer
	calls = append(calls, farmtest.Go(t, c, "tap_xy", map[string]any{"serial": member, "lease": grp.Handle, "x": 0.5, "y": 0.5, "timeout_ms": 300}))
	calls = append(calls, farmtest.Go(t, c, "tap_xy", map[string]any{"serial": stop, "x": 0.5, "y": 0.5, "timeout_ms": 300}))
	var started struct {
		TaskID string `json:"taskId"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": own, "goal": "think long", "wait": false, "timeout_ms": 300}), &started)
	require.NotEmpty(t, started.TaskID)
	deadlines := map[string]time.Time{}
	farmtest.Eventually(t, 20*time.Second, func() bool {
		for _, serial := range []string{member, own, stop} {
			if d, ok := f.Gateway().Client.Device(serial); ok && d.Task != nil {
				deadlines[serial] = d.Task.Deadline
			}
		}
		return len(deadlines) == 3
	}, "the registry shows the three tasks running")
	var last time.Time
	for _, d := range deadlines {
		if d.After(last) {
			last = d
		}
	}
	farmtest.Eventually(t, 20*time.Second, func() bool { return time.Now().After(last.Add(time.Second)) }, "the tasks' deadlines passed")

	t.Run("abort_task of the caller's agent task", func(t *testing.T) {
		text := farmtest.Text(farmtest.MustCall(t, c, "abort_task", nil))
		assert.Contains(t, text, "Nothing aborted on device "+own+": task "+started.TaskID+" had timed out already")
		assert.NotContains(t, text, "No task is currently running")
	})
	t.Run("abort_task by a group's handle", func(t *testing.T) {
		text := farmtest.Text(farmtest.MustCall(t, c, "abort_task", map[string]any{"lease": grp.Handle}))
		assert.Contains(t, text, "Nothing aborted on the devices of lease group "+grp.ID+": task ")
		assert.Contains(t, text, "had timed out already")
		assert.NotContains(t, text, "No task is currently running")
	})
	t.Run("emergency_stop", func(t *testing.T) {
		text := farmtest.Text(farmtest.MustCall(t, c, "emergency_stop", map[string]any{"serial": stop}))
		assert.Contains(t, text, stop+": 0 task(s) aborted. task ")
		assert.Contains(t, text, "had timed out already")
	})

	for _, call := range calls {
		select {
		case a := <-call:
			assert.Contains(t, farmtest.Text(a.Get(t)), "timed out")
		case <-time.After(60 * time.Second):
			t.Fatal("a tap was never answered")
		}
	}
}
