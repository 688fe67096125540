package main

import (
	"regexp"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A farm of nodes with no gateway (corral node beside a nats-server, no corral gateway or up)
// has no sessions bucket, where the CLI keeps its latest task: a corral call there says that
// its task is not kept, and how to read it; the next one's get_latest_task said "No task yet:
// this session ... called no device tool in the last 24 h", nothing more.
func TestCallOnAFarmWithoutGatewaySaysItsLatestTaskIsNotKept(t *testing.T) {
	noNATSSettings(t)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	f.StopGateway()
	// As if no gateway had ever run: the sessions bucket is the gateway's to make.
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.NoError(t, js.DeleteKeyValue(t.Context(), broker.SessionBucket))

	via := []string{"--nats-url", f.URL, "--log-level", "error"}
	code, out, errOut := corralMain(t, append([]string{"call"}, append(via, "tap_xy", `{"serial":"`+serial+`","x":0.5,"y":0.5}`)...)...)
	require.Equal(t, 0, code, "corral call tap_xy: %s%s", out, errOut)
	m := regexp.MustCompile(`corral: the latest task \(([^)]+)\) is not kept: this NATS has no ` + broker.SessionBucket +
		` bucket, which a gateway makes \(corral gateway or corral up\)`).FindStringSubmatch(errOut)
	require.NotNil(t, m, "corral call tap_xy did not say its latest task is not kept: %q", errOut)
	id := m[1]
	assert.Contains(t, errOut, `get_task_result '{"task_id":"`+id+`"}' reads its record`)

	code, out, errOut = corralMain(t, append([]string{"call"}, append(via, "get_task_result", `{"task_id":"`+id+`"}`)...)...)
	require.Equal(t, 0, code, "corral call get_task_result: %s%s", out, errOut)
	assert.Contains(t, out, `"tool":"tap_xy"`, "the record the note points to")

	// get_latest_task there finds none, ever: its answer says why and where the latest is, not
	// "No task yet: this session ... called no device tool in the last 24 h".
	code, out, errOut = corralMain(t, append([]string{"call"}, append(via, "get_latest_task", `{"anyTool":true,"serial":"`+serial+`"}`)...)...)
	require.Equal(t, 0, code, "corral call get_latest_task: %s%s", out, errOut)
	assert.NotContains(t, out, "No task yet")
	assert.Contains(t, out, "No latest task is kept on this farm: its NATS has no "+broker.SessionBucket+" bucket")
	assert.Contains(t, out, "corral tasks --nats-url "+f.URL+" --serial "+serial+" --limit 1 lists the latest", "the command that reads it")
	assert.Contains(t, out, `"status":"none"`, "the structured answer as before")
	code, out, errOut = corralMain(t, append([]string{"call"}, append(via, "get_latest_task", `{}`)...)...)
	require.Equal(t, 0, code, "corral call get_latest_task: %s%s", out, errOut)
	assert.Contains(t, out, "corral tasks --nats-url "+f.URL+" --tool run_agent_task --limit 1 lists the latest", "the latest agent task's")
	code, out, errOut = corralMain(t, append([]string{"tasks"}, append(via, "--serial", serial, "--limit", "1")...)...)
	require.Equal(t, 0, code, "corral tasks: %s%s", out, errOut)
	assert.Contains(t, out, id, "corral tasks lists the latest task")
}
