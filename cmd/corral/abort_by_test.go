package main

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// corral abort through NATS records the operator as release --force and drain do: --by, or
// operator USER@HOST, not the CLI's anonymous MCP client. Through a gateway, where the token's
// principal is recorded, --by is refused with what to do instead.
func TestAbortNamesTheOperator(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: platforms()})
	serial := f.Phones()[0].Info().Serial
	holder := f.Client("agent")
	var prev string // the previous case's task, which the registry may show a moment longer
	for _, c := range []struct {
		by   []string
		want string
	}{
		{[]string{"--by", "alice on call"}, "alice on call"},
		{nil, operatorName("")},
	} {
		answer := farmtest.Go(t, holder, "sleep", map[string]any{"serial": serial, "seconds": 60})
		var taskID string
		farmtest.Eventually(t, 30*time.Second, func() bool {
			d, ok := f.Gateway().Client.Device(serial)
			if ok && d.Task != nil && d.Task.ID != prev {
				taskID = d.Task.ID
			}
			return taskID != ""
		}, "the sleep on %s never started", serial)
		var err error
		out := captureStdout(t, func() {
			err = runAbort(t.Context(), append([]string{"--nats-url", f.URL, "--log-level", "error", serial}, c.by...))
		})
		require.NoError(t, err, out)
		assert.Contains(t, out, taskID)
		res := (<-answer).Get(t)
		require.True(t, res.IsError, farmtest.Text(res))
		assert.Contains(t, farmtest.Text(res), "aborted by "+c.want)

		var rec broker.TaskResult
		farmtest.Eventually(t, 10*time.Second, func() bool {
			h := taskHistory(t, f, serial, "sleep")
			i := slices.IndexFunc(h.Tasks, func(r broker.TaskResult) bool { return r.ID == taskID })
			if i >= 0 {
				rec = h.Tasks[i]
			}
			return i >= 0
		}, "the record of task %s", taskID)
		assert.Equal(t, broker.OutcomeAborted, rec.Outcome)
		assert.Contains(t, rec.Error, "aborted by "+c.want)
		prev = taskID
	}

	err := runAbort(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--by", "alice", serial})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "through a gateway the abort is recorded as by your token's principal")
}
