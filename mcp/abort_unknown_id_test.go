package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// abort_task of an id no task has was answered only after the record grace (a second): it read
// the record as one "just written". It polls, as get_task_result does: one read, no wait.
func TestAbortOfAnUnknownIDWaitsNoRecordGrace(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	rc, c := countingGateway(t, f)
	res := farmtest.Call(t, c, "abort_task", map[string]any{"taskId": "t_nosuchtask"})
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "no task has the id t_nosuchtask")
	assert.EqualValues(t, 1, rc.polls.Load(), "an unknown id's record read as a poll")
	assert.Zero(t, rc.waiting.Load(), "an unknown id's record waited for")
}
