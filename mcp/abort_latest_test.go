package mcp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// abort_task {} of a caller with no agent task of its own (a later corral call: a new
// Corral-Caller each) stops the agent task get_latest_task {} shows it, when that still runs,
// also after a later call of another tool (which get_latest_task {"anyTool": true} shows); a
// caller with one of its own stops that one only.
func TestAbortTaskWithoutArgumentsStopsTheLatestAgentTask(t *testing.T) {
	wait := modelsim.Turn{Delay: time.Minute, Text: "too late"}
	srv := modelsim.New(wait, wait, wait, wait, wait, wait)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Model: m, Quiet: true})
	devs := f.Devices()
	require.Len(t, devs, 3)
	a, _ := taggedClient(t, f, "corral-run")
	b, _ := taggedClient(t, f, "corral-run")
	idA := startDetached(t, a, devs[0].Serial, "think long")
	idB := startDetached(t, b, devs[1].Serial, "think long") // the latest of corral-run's callers
	runs := func(id string) bool {
		for _, d := range f.Devices() {
			if d.Task != nil && d.Task.ID == id {
				return true
			}
		}
		return false
	}
	farmtest.Eventually(t, 20*time.Second, func() bool { return runs(idA) && runs(idB) }, "the registry shows both agent tasks running")

	text := farmtest.Text(farmtest.MustCall(t, a, "abort_task", nil))
	assert.Contains(t, text, "Task aborted: "+idA, "a caller with an agent task of its own stops that one")
	assert.NotContains(t, text, idB)

	later, _ := taggedClient(t, f, "corral-run")
	var latest struct {
		TaskID  string `json:"taskId"`
		Outcome string `json:"outcome"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, later, "get_latest_task", map[string]any{"includeSteps": false}), &latest)
	require.Equal(t, idB, latest.TaskID)
	require.Equal(t, "running", latest.Outcome)
	text = farmtest.Text(farmtest.MustCall(t, later, "abort_task", nil))
	assert.Contains(t, text, "Task aborted: "+idB+" (run_agent_task on device "+devs[1].Serial+")", "the latest agent task, as get_latest_task shows it")
	farmtest.Eventually(t, 20*time.Second, func() bool { return !runs(idB) }, "the latest agent task aborted")

	// The latest task is a home; the latest agent task, a's new one, runs: abort_task {} stops it.
	idA = startDetached(t, a, devs[0].Serial, "think long")
	farmtest.MustCall(t, b, "home", map[string]any{"serial": devs[2].Serial})
	farmtest.Structured(t, farmtest.MustCall(t, later, "get_latest_task", map[string]any{"includeSteps": false, "anyTool": true}), &latest)
	require.NotEqual(t, idA, latest.TaskID, "the home is the latest task of any tool")
	text = farmtest.Text(farmtest.MustCall(t, later, "abort_task", nil))
	assert.Contains(t, text, "Task aborted: "+idA, "the latest agent task, not the home after it")
	farmtest.Eventually(t, 20*time.Second, func() bool { return !runs(idA) }, "the latest agent task aborted")
}
