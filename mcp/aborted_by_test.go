package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// get_task_result of an aborted task says who aborted it (abortedBy), the abort_task caller's
// principal and client label, as its record does (QA D5: abortedBy was never filled; who
// aborted was only inside error).
func TestAbortedTaskResultSaysWhoAborted(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	runner, aborter := f.Client("runner"), f.Client("aborter")
	slept := farmtest.Go(t, runner, "sleep", map[string]any{"serial": "n1-p1", "seconds": 60})
	var running string
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device("n1-p1")
		if d.Task != nil && d.Task.Tool == "sleep" {
			running = d.Task.ID
		}
		return running != ""
	}, "sleep running on n1-p1")
	farmtest.MustCall(t, aborter, "abort_task", map[string]any{"serial": "n1-p1"})
	(<-slept).Get(t)

	var out mcp.TaskRecordResult
	farmtest.Structured(t, farmtest.MustCall(t, runner, "get_task_result", map[string]any{"task_id": running}), &out)
	require.Equal(t, "aborted", out.Outcome)
	assert.Contains(t, out.AbortedBy, "aborter", "abortedBy names the abort_task caller")
}
