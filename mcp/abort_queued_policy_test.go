package mcp_test

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Tokens of queuePolicy.
const (
	queueAlphaToken = "queue-alpha-token-5c1e9a7b3d"
	queueBetaToken  = "queue-beta-token-8e2f4a6c1b"
	queueGammaToken = "queue-gamma-token-3b7d9f1a5e"
	queueOpsToken   = "queue-ops-token-6a4c2e8f0d"
)

const queuePolicy = `principals:
  - name: alpha
    token: ` + queueAlphaToken + `
  - name: beta
    token: ` + queueBetaToken + `
  - name: gamma
    token: ` + queueGammaToken + `
  - name: ops
    token: ` + queueOpsToken + `
    operator: true
`

// A queued task's id shows in its device's registry entry, so another principal may learn it.
// Under a policy only its sender or an operator aborts it: gamma, who knows beta's queued
// task's id, is refused by task_id, taskId and with all, and so is alpha, who holds the
// device beta's task waits for (by task_id, with serial, with its lease); each refusal names the sender and the rule and is counted
// as a policy denial; the task still waits. beta aborts its own, and ops another of beta's.
func TestAbortOfAnotherPrincipalsQueuedTaskIsDenied(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	pol, err := mcp.ParsePolicy([]byte(queuePolicy), t.TempDir())
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(reg), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	alpha, beta := tokenClient(t, hs.URL, "alpha-agent", queueAlphaToken), tokenClient(t, hs.URL, "beta-agent", queueBetaToken)
	gamma, ops := tokenClient(t, hs.URL, "gamma-agent", queueGammaToken), tokenClient(t, hs.URL, "ops-console", queueOpsToken)

	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, alpha, "acquire_device", map[string]any{"serial": serial}), &held)
	waiting := farmtest.Go(t, beta, "home", map[string]any{"serial": serial, "wait_seconds": 60})
	id := queuedID(t, f, serial)

	denied := deniedCount(t, reg, "holder")
	refusal := fmt.Sprintf(`denied by policy: principal %%q may not abort task %s, which principal "beta" queued for device %s `+
		`(rule: only a queued task's sender or an operator aborts it); ask beta or an operator to abort it`, id, serial)
	for _, c := range []struct {
		who    string
		client *client.Client
		args   map[string]any
	}{
		{"gamma", gamma, map[string]any{"task_id": id}},
		{"gamma", gamma, map[string]any{"taskId": id}},
		{"gamma", gamma, map[string]any{"task_id": id, "all": true}},
		{"alpha", alpha, map[string]any{"task_id": id}}, // the device's holder
		{"alpha", alpha, map[string]any{"task_id": id, "serial": serial}},
		{"alpha", alpha, map[string]any{"task_id": id, "lease": held.Lease.Handle}},
	} {
		res := farmtest.Call(t, c.client, "abort_task", c.args)
		require.True(t, res.IsError, "%s aborted beta's queued task with %v: %s", c.who, c.args, farmtest.Text(res))
		text := wantRefused(t, res, fmt.Sprintf(refusal, c.who))
		assert.NotContains(t, text, held.Lease.Handle)
	}
	assert.Equal(t, denied+6, deniedCount(t, reg, "holder"), "the refusals are not counted as policy denials")
	select {
	case a := <-waiting:
		t.Fatalf("beta's queued task ended after the refused aborts: %s", farmtest.Text(a.Get(t)))
	default:
	}
	d, _ := f.Gateway().Client.Device(serial)
	assert.Contains(t, d.Queue, id, "beta's task left the queue after the refused aborts")

	var out mcp.AbortResult
	farmtest.Structured(t, farmtest.MustCall(t, beta, "abort_task", map[string]any{"task_id": id}), &out)
	assert.Equal(t, []string{id}, out.Aborted, "beta aborting its own queued task")
	assert.Contains(t, farmtest.Text((<-waiting).Get(t)), "aborted")

	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return len(d.Queue) == 0
	}, "the aborted task left the entry's queue")
	waiting = farmtest.Go(t, beta, "home", map[string]any{"serial": serial, "wait_seconds": 60})
	id = queuedID(t, f, serial)
	farmtest.Structured(t, farmtest.MustCall(t, ops, "abort_task", map[string]any{"task_id": id}), &out)
	assert.Equal(t, []string{id}, out.Aborted, "the operator aborting beta's queued task")
	assert.Contains(t, farmtest.Text((<-waiting).Get(t)), "aborted")
	farmtest.MustCall(t, alpha, "release_device", map[string]any{"lease": held.Lease.Handle})
}

// tokenClient is an MCP client of the gateway at base (its /mcp) sending token.
func tokenClient(t *testing.T, base, name, token string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(base+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	_, err = c.Initialize(t.Context(), init)
	require.NoError(t, err)
	return c
}

// deniedCount is corral_gateway_denied_total{reason} in reg.
func deniedCount(t *testing.T, reg prometheus.Gatherer, reason string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "corral_gateway_denied_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() == reason {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
