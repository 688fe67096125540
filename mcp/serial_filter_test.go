package mcp_test

import (
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// HttpRunner's clients send serial with every call, the gateway's own tools too. list_leases
// and get_latest_task took it and ignored it: list_leases listed every lease, get_latest_task
// answered the caller's latest task on any device. Given a serial they read of that device
// only, and an unknown one is refused in the words every other tool uses.

// list_leases {serial} lists the leases of that device only; a device without one lists none.
func TestListLeasesOfASerial(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 3, Quiet: true})
	farmtest.MustCall(t, f.Client("alice"), "acquire_device", map[string]any{"serial": "n1-p1"})
	farmtest.MustCall(t, f.Client("bob"), "acquire_device", map[string]any{"serial": "n1-p2"})
	c := f.Client("reader")
	leases := func(args map[string]any) []string {
		t.Helper()
		var out mcp.LeasesResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "list_leases", args), &out)
		serials := []string{}
		for _, l := range out.Leases {
			serials = append(serials, l.Serial)
		}
		assert.Equal(t, len(serials), out.Summary.Total, "the summary counts what the filter lists: %v", args)
		return serials
	}
	require.Equal(t, []string{"n1-p1", "n1-p2"}, leases(map[string]any{}))
	assert.Equal(t, []string{"n1-p2"}, leases(map[string]any{"serial": "n1-p2"}))
	assert.Equal(t, []string{"n1-p1"}, leases(map[string]any{"serial": "n1-p1", "platform": "android", "anti_risk": true}))
	assert.Empty(t, leases(map[string]any{"serial": "n1-p3"}), "a device without a lease")

	refusedAsElsewhere(t, c, "list_leases")
	res := farmtest.Call(t, c, "list_leases", map[string]any{"serial": "n1-p1", "platform": "ios"})
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "device n1-p1 is android, not ios")
}

// get_latest_task {serial} is the caller's latest agent task on that device ({"anyTool": true,
// serial}: its latest task of any tool there); with none there it answers the "none yet" form,
// naming the device.
func TestGetLatestTaskOfASerial(t *testing.T) {
	srv := modelsim.New(modelTurn("plan", `{"steps":[{"title":"Look"}]}`), modelTurn("finished", `{"content":"looked"}`))
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Model: m, Quiet: true})
	c := sessionClient(f, "hrp")
	latest := func(args map[string]any) mcp.TaskRecordResult {
		t.Helper()
		var out mcp.TaskRecordResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args), &out)
		return out
	}
	anyTool := func(serial string) map[string]any {
		if serial == "" {
			return map[string]any{"anyTool": true}
		}
		return map[string]any{"anyTool": true, "serial": serial, "platform": "android"}
	}

	farmtest.MustCall(t, c, "home", map[string]any{"serial": "n1-p1"})
	onP1 := latest(anyTool(""))
	require.Equal(t, "home", onP1.Tool)
	farmtest.MustCall(t, c, "back", map[string]any{"serial": "n1-p2"})
	onP2 := latest(anyTool(""))
	require.Equal(t, "back", onP2.Tool)

	assert.Equal(t, onP1.TaskID, latest(anyTool("n1-p1")).TaskID, "the latest task on n1-p1")
	assert.Equal(t, onP2.TaskID, latest(anyTool("n1-p2")).TaskID, "the latest task on n1-p2")

	none := latest(map[string]any{"serial": "n1-p1"})
	assert.Equal(t, "none", none.Status, "no agent task on n1-p1")
	assert.Equal(t, "n1-p1", none.Serial)
	assert.Contains(t, none.Message, "No agent task yet: this session (without a session: this client) ran no run_agent_task on device n1-p1 in the last 24 h.")

	agentTask := viewOf(t, farmtest.MustCall(t, c, "run_agent_task", map[string]any{"serial": "n1-p2", "goal": "look"}))
	farmtest.MustCall(t, c, "home", map[string]any{"serial": "n1-p2"}) // moves the any-tool latest, not the agent one
	assert.Equal(t, agentTask.TaskID, latest(map[string]any{"serial": "n1-p2"}).TaskID, "the latest agent task on n1-p2")
	assert.Equal(t, "none", latest(map[string]any{"serial": "n1-p1"}).Status, "still no agent task on n1-p1")
	assert.Equal(t, onP1.TaskID, latest(anyTool("n1-p1")).TaskID, "n1-p2's tasks leave n1-p1's latest")

	refusedAsElsewhere(t, c, "get_latest_task")
	res := farmtest.Call(t, c, "get_latest_task", map[string]any{"serial": "n1-p1", "platform": "ios"})
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "device n1-p1 is android, not ios")
}

// refusedAsElsewhere checks that tool refuses a serial no device has in the words
// get_device_status refuses it with, each refusal naming its own tool.
func refusedAsElsewhere(t *testing.T, c *client.Client, tool string) {
	t.Helper()
	unknown := map[string]any{"serial": "n9-p9"}
	want := farmtest.Call(t, c, "get_device_status", unknown)
	require.True(t, want.IsError, farmtest.Text(want))
	got := farmtest.Call(t, c, tool, unknown)
	require.True(t, got.IsError, "%s of an unknown serial: %s", tool, farmtest.Text(got))
	assert.Equal(t, strings.Replace(farmtest.Text(want), "get_device_status refused", tool+" refused", 1), farmtest.Text(got),
		"%s refuses an unknown serial as the other tools do", tool)
}
