package mcp_test

import (
	"crypto/rand"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// taggedClient is an MCP client of the farm's gateway as name, sending a Corral-Caller header
// of its own (as corral run and corral call do), and its session's tag as holders show it.
func taggedClient(t *testing.T, f *farmtest.Farm, name string) (*client.Client, string) {
	t.Helper()
	caller := rand.Text()
	c, err := client.NewStreamableHttpClient(f.Gateway().MCPURL, transport.WithHTTPHeaders(map[string]string{mcp.CallerHeader: caller}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return c, broker.SessionTag(caller)
}

// Two sessions of one principal and client (two corral runs) hold a device each. Everywhere a
// holder shows (acquire_device's lease, list_leases, the registry's device status, a refusal,
// a task record) it shows with its session's tag, so the user tells them apart; list_leases
// marks the caller's own; a refusal names the holder's tag and the caller's, to compare; the
// holder filter takes one session or all of a principal and client. get_latest_task without a
// protocol session stays the principal and client's: another caller of theirs reads it.
func TestHoldersShowTheirSessions(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	devs := f.Devices()
	require.Len(t, devs, 2)
	s0, s1 := devs[0].Serial, devs[1].Serial
	a, tagA := taggedClient(t, f, "corral-run")
	b, tagB := taggedClient(t, f, "corral-run")
	require.NotEqual(t, tagA, tagB)
	shownA, shownB := "anonymous (corral-run) session "+tagA, "anonymous (corral-run) session "+tagB

	var heldA, heldB mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, a, "acquire_device", map[string]any{"serial": s0}), &heldA)
	farmtest.Structured(t, farmtest.MustCall(t, b, "acquire_device", map[string]any{"serial": s1}), &heldB)
	assert.Equal(t, shownA, heldA.Lease.Holder)
	assert.Equal(t, shownB, heldB.Lease.Holder)

	leasesOf := func(c *client.Client, args map[string]any) map[string]mcp.LeaseInfo {
		var res mcp.LeasesResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "list_leases", args), &res)
		out := map[string]mcp.LeaseInfo{}
		for _, l := range res.Leases {
			out[l.Serial] = l
		}
		return out
	}
	ls := leasesOf(a, nil)
	require.Len(t, ls, 2)
	assert.Equal(t, shownA, ls[s0].Holder)
	assert.True(t, ls[s0].Yours, "a's own lease is not marked yours")
	assert.Equal(t, shownB, ls[s1].Holder)
	assert.False(t, ls[s1].Yours, "another session's lease is marked yours")
	ls = leasesOf(b, nil)
	assert.False(t, ls[s0].Yours)
	assert.True(t, ls[s1].Yours)
	assert.Equal(t, []string{s0}, keys(leasesOf(b, map[string]any{"holder": shownA})), "the holder filter of one session")
	assert.Equal(t, []string{s0, s1}, keys(leasesOf(b, map[string]any{"holder": "anonymous (corral-run)"})), "the holder filter of all sessions")

	farmtest.Eventually(t, 20*time.Second, func() bool {
		var st mcp.DeviceStatusResult
		farmtest.Structured(t, farmtest.MustCall(t, b, "get_device_status", map[string]any{"serial": s0}), &st)
		return st.Holder == shownA
	}, "the registry shows %s's holder with its session", s0)

	text := farmtest.Text(farmtest.Call(t, b, "home", map[string]any{"serial": s0}))
	assert.Contains(t, text, "Held by "+shownA+" until")
	assert.Contains(t, text, "another session of anonymous (corral-run) (the holder is session "+tagA+"; you are session "+tagB+")")

	farmtest.MustCall(t, a, "home", map[string]any{"serial": s0, "lease": heldA.Lease.Handle})
	var latest struct {
		TaskID string `json:"taskId"`
		Tool   string `json:"tool"`
		Holder string `json:"holder"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, b, "get_latest_task", map[string]any{"anyTool": true}), &latest)
	assert.Equal(t, "home", latest.Tool, "another caller of the same principal and client does not read their latest task")
	assert.Equal(t, shownA, latest.Holder, "the task record's holder")
	var rec mcp.TaskRecordResult
	farmtest.Structured(t, farmtest.MustCall(t, a, "get_task_result", map[string]any{"taskId": latest.TaskID}), &rec)
	assert.Equal(t, shownA, rec.Holder)
}

func keys(m map[string]mcp.LeaseInfo) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Two corral runs of one token and client name each run an agent task in the background (the
// protocol revision without sessions: they tell themselves apart by Corral-Caller). abort_task
// without arguments from one stops its own task only: the other's runs on until its own caller
// stops it.
func TestAbortTaskWithoutArgumentsStopsOnlyTheCallersSession(t *testing.T) {
	wait := modelsim.Turn{Delay: time.Minute, Text: "too late"}
	srv := modelsim.New(wait, wait, wait, wait)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "scripted"}, nil)
	require.NoError(t, err)
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Model: m, Quiet: true})
	devs := f.Devices()
	require.Len(t, devs, 2)
	a, _ := taggedClient(t, f, "corral-run")
	b, _ := taggedClient(t, f, "corral-run")
	idA := startDetached(t, a, devs[0].Serial, "think long")
	idB := startDetached(t, b, devs[1].Serial, "think long")
	// The registry shows both running, with their holders: abort_task {} reads it too.
	farmtest.Eventually(t, 20*time.Second, func() bool {
		var running []string
		for _, d := range f.Devices() {
			if d.Task != nil && d.Task.Holder != nil {
				running = append(running, d.Task.ID)
			}
		}
		return slices.Contains(running, idA) && slices.Contains(running, idB)
	}, "the registry shows both agent tasks running")

	text := farmtest.Text(farmtest.MustCall(t, a, "abort_task", nil))
	assert.Contains(t, text, "Task aborted: "+idA)
	assert.NotContains(t, text, idB, "abort_task {} stopped another session's task")
	v := viewOf(t, farmtest.MustCall(t, b, "get_task_result", map[string]any{"taskId": idB}))
	assert.Equal(t, "running", v.Outcome, "the other session's task")

	text = farmtest.Text(farmtest.MustCall(t, b, "abort_task", nil))
	assert.Contains(t, text, "Task aborted: "+idB)
	assert.NotContains(t, text, idA)
}
