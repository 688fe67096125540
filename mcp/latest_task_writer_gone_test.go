package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A latest task written as its call started (cmd/corral: keepWhenStarted) whose writer went
// before its node had it: the entry names a task with no record that no device runs or
// queues. get_latest_task says it is not running and what to do, not a bare "not found".
func TestGetLatestTaskOfAGoneWriterIsNotRunning(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gone := broker.NewTaskID()
	who := "holder:" + broker.Holder{Principal: broker.Anonymous, Client: "qa"}.Name() // a client without a session
	require.NoError(t, f.Gateway().Client.SetLatestTask(t.Context(), broker.UnderPrincipal(broker.Anonymous, who), gone))

	res := farmtest.Call(t, f.Client("qa"), "get_latest_task", anyTool)
	require.True(t, res.IsError, "%s", farmtest.Text(res))
	text := farmtest.Text(res)
	assert.Contains(t, text, "the latest task, "+gone+", has no record and no device runs or queues it: it is not running")
	assert.Contains(t, text, `get_task_result {"taskId": "`+gone+`"}`)
	assert.Contains(t, text, "call again if it is still wanted")
}
