package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// Through a gateway each corral call is a caller of its own (its own Corral-Caller), yet
// get_latest_task is shared by them: a later call's abort_task {} stops the agent task an
// earlier call started without waiting, the one get_latest_task shows running, as the
// wait:false answer says ("abort_task stops it"), also after a later call of another tool on
// another device. While it runs, a second run_agent_task is refused naming it, and corral
// tasks export says it still runs.
func TestCallThroughGatewayAbortsTheLatestAgentTask(t *testing.T) {
	srv := modelsim.New(modelCall("plan", `{"steps":[{"title":"Wait for the model"}]}`), modelsim.Turn{Delay: time.Minute, Text: "too late"})
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Model: m, Quiet: true})
	serial := f.Devices()[0].Serial
	gw := []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error"}
	call := func(tool, args string) (string, error) {
		t.Helper()
		var err error
		var out string
		stderr := captureStderr(t, func() {
			out = captureStdout(t, func() { err = runCall(t.Context(), append(gw, tool, args)) })
		})
		return out + stderr, err
	}
	agent := `{"serial":"` + serial + `","goal":"think long","wait":false}`

	out, err := call("run_agent_task", agent)
	require.NoError(t, err, out)
	var started struct{ TaskID, Status string }
	require.NoError(t, json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &started), out)
	require.Equal(t, "running", started.Status, out)
	id := started.TaskID

	out, err = call("get_latest_task", `{"includeSteps":false}`)
	require.NoError(t, err, out)
	assert.Contains(t, out, `"taskId":"`+id+`"`)
	assert.Contains(t, out, `"outcome":"running"`)

	err = runTasksExport(t.Context(), append(gw, id))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "task "+id+" is still running: export it once it ended")

	out, err = call("run_agent_task", agent)
	require.Error(t, err, out)
	assert.Contains(t, out+err.Error(), "Agent is already running")
	assert.Contains(t, out+err.Error(), `abort_task {"taskId": "`+id+`"} stops it`, "the refusal names the running task")

	other := f.Devices()[1].Serial
	out, err = call("take_screenshot", `{"serial":"`+other+`"}`)
	require.NoError(t, err, out)

	out, err = call("abort_task", `{}`)
	require.NoError(t, err, out)
	assert.Contains(t, out, "Task aborted: "+id+" (run_agent_task on device "+serial+")")
	assert.Contains(t, out, `"aborted":["`+id+`"]`)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task == nil
	}, "the agent task aborted")

	out, err = call("abort_task", `{}`)
	require.NoError(t, err, out)
	assert.Contains(t, out, "No task is currently running.", "its latest task ended: nothing to stop")
}
