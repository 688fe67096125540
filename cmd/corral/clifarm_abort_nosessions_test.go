package main

import (
	"regexp"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// On a farm with no sessions bucket (no gateway ever ran), abort_task {} in a later corral call
// cannot find the agent task an earlier one started, which is not kept as its latest: it
// answered "No task is currently running." while the task ran.
func TestCallAbortTaskOnAFarmWithoutGatewaySaysItsTaskIsNotKept(t *testing.T) {
	noNATSSettings(t)
	srv := modelsim.New(modelCall("plan", `{"steps":[{"title":"Wait for the model"}]}`), modelsim.Turn{Delay: time.Minute, Text: "too late"})
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Model: m, Quiet: true})
	serial := f.Devices()[0].Serial
	f.StopGateway()
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, js.DeleteKeyValue(t.Context(), broker.SessionBucket))

	via := []string{"call", "--nats-url", f.URL, "--log-level", "error"}
	code, out, errOut := corralMain(t, append(via, "run_agent_task", `{"serial":"`+serial+`","goal":"think long","wait":false}`)...)
	require.Equal(t, 0, code, "run_agent_task: %s%s", out, errOut)
	started := regexp.MustCompile(`"taskId":"([^"]+)"`).FindStringSubmatch(out)
	require.NotNil(t, started, "run_agent_task: %s", out)
	id := started[1]

	code, out, errOut = corralMain(t, append(via, "abort_task", `{}`)...)
	require.Equal(t, 0, code, "abort_task {}: %s%s", out, errOut)
	assert.NotContains(t, out, "No task is currently running", "while task "+id+" runs")
	assert.Contains(t, out, "Nothing aborted: no agent task of this corral call runs, and an earlier corral call's cannot be found, as this farm's NATS has no "+broker.SessionBucket+" bucket")
	stop := "corral call --nats-url " + f.URL + " abort_task '{\"task_id\":\"" + id + "\"}' stops"
	assert.Contains(t, out, "Running now, started by corral calls: task "+id+" (run_agent_task on device "+serial+", since ")
	assert.Contains(t, out, stop)
	assert.Contains(t, out, `"aborted":[]`, "the structured answer as before")

	// The command it names stops the task.
	code, out, errOut = corralMain(t, append(via, "abort_task", `{"task_id":"`+id+`"}`)...)
	require.Equal(t, 0, code, "abort_task task_id: %s%s", out, errOut)
	assert.Contains(t, out, `"aborted":["`+id+`"]`)
	code, out, errOut = corralMain(t, append(via, "abort_task", `{}`)...)
	require.Equal(t, 0, code, "abort_task {}: %s%s", out, errOut)
	assert.Contains(t, out, "No agent task started by a corral call runs now; corral tasks --nats-url "+f.URL+
		" --tool run_agent_task --limit 1 lists the latest.")
}
