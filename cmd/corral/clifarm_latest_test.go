package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// corral call get_latest_task {"anyTool": true} without --gateway finds the task of the previous corral call:
// each command is a new in-process session, so the latest task is kept as the CLI holder's,
// in NATS, as a gateway keeps a client's without a session. (It said "no task yet", always.)
func TestCallGetLatestTaskFindsThePreviousCall(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	nats := []string{"--nats-url", f.URL, "--log-level", "error"}
	latest := func(via []string) string {
		t.Helper()
		var out string
		var err error
		stderr := captureStderr(t, func() {
			out = captureStdout(t, func() {
				err = runCall(t.Context(), append(via, "get_latest_task", `{"includeSteps":false,"anyTool":true}`))
			})
		})
		require.NoError(t, err, "corral call %s get_latest_task: %s", strings.Join(via, " "), stderr)
		return out
	}

	var last string
	for tool, args := range map[string]string{"home": `{"serial":"` + serial + `"}`, "tap_xy": `{"serial":"` + serial + `","x":0.5,"y":0.5}`} {
		captureStdout(t, func() { require.NoError(t, runCall(t.Context(), append(nats, tool, args))) })
		got := latest(nats)
		assert.Contains(t, got, `"tool":"`+tool+`"`)
		assert.Contains(t, got, `"serial":"`+serial+`"`)
		assert.Contains(t, got, `"holder":"anonymous (corral-cli) session `, "the holder with its in-process session's tag")
		last = tool
	}
	// A gateway without a policy keys a client without a session the same way: the CLI's
	// latest task is found through it too.
	assert.Contains(t, latest([]string{"--gateway", f.Gateway().MCPURL, "--log-level", "error"}), `"tool":"`+last+`"`)
}

// abort_task {} in a later corral call stops the agent task an earlier one started without
// waiting: the CLI's latest agent task is its holder's too, not a session's that ended.
func TestCallAbortTaskFindsThePreviousCallsAgentTask(t *testing.T) {
	srv := modelsim.New(modelCall("plan", `{"steps":[{"title":"Wait for the model"}]}`), modelsim.Turn{Delay: time.Minute, Text: "too late"})
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m, Quiet: true})
	serial := f.Devices()[0].Serial
	nats := []string{"--nats-url", f.URL, "--log-level", "error"}
	var out string
	captureStdout(t, func() {
		require.NoError(t, runCall(t.Context(), append(nats, "run_agent_task", `{"serial":"`+serial+`","goal":"think long","wait":false}`)))
	})
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil
	}, "the agent task running")
	out = captureStdout(t, func() { require.NoError(t, runCall(t.Context(), append(nats, "abort_task", `{}`))) })
	assert.Contains(t, out, "run_agent_task on device "+serial)
	assert.NotContains(t, out, "No task is currently running")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task == nil
	}, "the agent task aborted")
}
