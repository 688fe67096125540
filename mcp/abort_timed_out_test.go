package mcp_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// abort_task on a task whose deadline has passed while its driver is still returning answers
// that it had timed out already, aborted nothing, as the task then ends timed_out. It answered
// "Aborted 1 task(s)" while the task ended timed_out. By task id (no serial) the answer comes
// through every node's abort (QA: with the nodes' TimedOut dropped there, it said the task was
// "already being aborted" by someone).
func TestAbortAfterTheDeadlineSaysTimedOut(t *testing.T) {
	for _, by := range []string{"serial", "taskId"} {
		t.Run("by "+by, func(t *testing.T) { abortAfterTheDeadline(t, by) })
	}
}

func abortAfterTheDeadline(t *testing.T, by string) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Grace: 8 * time.Second, Quiet: true})
	serial := f.Devices()[0].Serial
	c := f.Client("agent")
	f.Phone(serial).HangNext() // the driver ignores its deadline, until Grace gives up on it
	tapped := farmtest.Go(t, c, "tap_xy", map[string]any{"serial": serial, "x": 0.5, "y": 0.5, "timeout_ms": 300})
	var deadline time.Time
	var running string
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		if ok && d.Task != nil && d.Task.Tool == "tap_xy" {
			deadline, running = d.Task.Deadline, d.Task.ID
		}
		return !deadline.IsZero()
	}, "the registry shows the tap running")
	farmtest.Eventually(t, 20*time.Second, func() bool { return time.Now().After(deadline.Add(time.Second)) }, "the tap's deadline passed")

	args, what := map[string]any{"serial": serial}, "device "+serial
	if by == "taskId" {
		args, what = map[string]any{"taskId": running}, "task "+running
	}
	text := farmtest.Text(farmtest.MustCall(t, c, "abort_task", args))
	assert.Contains(t, text, "Nothing aborted on "+what)
	assert.Contains(t, text, "had timed out already")
	assert.NotContains(t, text, "Aborted 1 task")
	assert.NotContains(t, text, "already being aborted")

	var tap string
	select {
	case a := <-tapped:
		tap = farmtest.Text(a.Get(t))
	case <-time.After(60 * time.Second):
		t.Fatal("the tap was never answered")
	}
	assert.Contains(t, tap, "timed out")
	id := regexp.MustCompile(`\bt_[A-Za-z0-9]+`).FindString(tap)
	require.Equal(t, running, id, tap)
	var rec broker.TaskResult
	farmtest.Eventually(t, 30*time.Second, func() bool {
		var err error
		rec, err = f.Gateway().Client.TaskRecord(t.Context(), id)
		return err == nil
	}, "task %s recorded", id)
	assert.Equal(t, broker.OutcomeTimedOut, rec.Outcome, rec.Error)
	assert.False(t, strings.Contains(rec.Error, "aborted"), rec.Error)
}
