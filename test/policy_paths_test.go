package test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Tokens of the policy below: alpha may tap and run sequences but not launch apps or press
// buttons; beta may call everything; ops is an operator. All share the sim phones' tag.
const (
	alphaToken = "alpha-token-8c1d2e3f4a5b6c7d"
	betaToken  = "beta-token-1a2b3c4d5e6f7a8b"
	opsToken   = "ops-token-9f8e7d6c5b4a3928"
)

const pathsPolicy = `principals:
  - name: alpha
    token: ` + alphaToken + `
    tags: [sim]
    tools: [list_available_devices, acquire_device, release_device, select_device, abort_task, tap_xy, sequence, sleep]
  - name: beta
    token: ` + betaToken + `
    tags: [sim]
  - name: ops
    token: ` + opsToken + `
    operator: true
`

// policyGateway serves a gateway of its own over the farm with the paths policy and opts.
func policyGateway(t *testing.T, f *farmtest.Farm, opts mcp.Options) string {
	t.Helper()
	_, url := policyGatewayClient(t, f, opts)
	return url
}

// policyGatewayClient is policyGateway with the gateway's farm client, to wait on what the
// gateway's registry shows.
func policyGatewayClient(t *testing.T, f *farmtest.Farm, opts mcp.Options) (*broker.Client, string) {
	t.Helper()
	c, url := gatewayWithPolicy(t, f, pathsPolicy, opts)
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Devices()) == 3 }, "the gateway sees the 3 phones")
	return c, url
}

// gatewayWithPolicy serves a gateway of its own over the farm with the policy (YAML) and opts;
// it returns the gateway's farm client and its /mcp URL.
func gatewayWithPolicy(t *testing.T, f *farmtest.Farm, policy string, opts mcp.Options) (*broker.Client, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(path, []byte(policy), 0o600))
	pol, err := mcp.LoadPolicy(path)
	require.NoError(t, err)
	opts.Policy = pol
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "policy-gateway"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return serveGateway(t, nc, slog.New(slog.DiscardHandler), opts)
}

func mustAuthClient(t *testing.T, url, name, token string) *client.Client {
	t.Helper()
	c, err := authClient(t, url, name, token)
	require.NoError(t, err)
	return c
}

// Item 2: each step of a sequence is checked against the tool policy: alpha, which may not
// call app_launch or press_button, cannot run them as steps either, and nothing reaches the
// phone; steps it may call still run.
func TestPolicySequenceStepsChecked(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	alpha := mustAuthClient(t, policyGateway(t, f, mcp.Options{}), "alpha-agent", alphaToken)
	for _, step := range []map[string]any{
		{"tool_name": "app_launch", "args": map[string]any{"packageName": "com.corral.settings"}},
		{"tool_name": "press_button", "args": map[string]any{"button": "HOME"}},
	} {
		res := farmtest.Call(t, alpha, "sequence", args("serial", "n1-p1", "steps", []any{
			map[string]any{"tool_name": "tap_xy", "args": map[string]any{"x": 0.5, "y": 0.5}}, step}))
		require.True(t, res.IsError, "alpha ran %s as a step: %s", step["tool_name"], farmtest.Text(res))
		assert.Contains(t, farmtest.Text(res), `denied by policy: principal "alpha" may not call `+step["tool_name"].(string)+`, which step 2 of sequence names`)
	}
	assert.Empty(t, f.Phone("n1-p1").InputLog(), "a refused sequence touched the phone")
	farmtest.MustCall(t, alpha, "sequence", args("serial", "n1-p1", "steps", []any{
		map[string]any{"tool_name": "tap_xy", "args": map[string]any{"x": 0.5, "y": 0.5}}}))
}

// Item 7: a principal sharing a device's tag cannot abort the task of a device another holds
// (by serial); the holder and an operator can.
func TestPolicyAbortOnlyByHolderOrOperator(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	url := policyGateway(t, f, mcp.Options{})
	alpha := mustAuthClient(t, url, "alpha-agent", alphaToken)
	beta := mustAuthClient(t, url, "beta-agent", betaToken)
	ops := mustAuthClient(t, url, "ops-console", opsToken)

	held := acquire(t, beta, args("serial", "n1-p1"))
	sleeping := farmtest.Go(t, beta, "sleep", args("serial", "n1-p1", "lease", held.Lease.Handle, "seconds", 60))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device("n1-p1")
		return d.State == broker.StateBusy
	}, "n1-p1 runs beta's sleep")

	res := farmtest.Call(t, alpha, "abort_task", args("serial", "n1-p1"))
	require.True(t, res.IsError, "alpha aborted beta's task: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), `principal "alpha" may not abort the task of device n1-p1, which principal "beta" holds`)
	select {
	case a := <-sleeping:
		t.Fatalf("beta's sleep ended after alpha's refused abort: %s", farmtest.Text(a.Get(t)))
	default:
	}

	res = farmtest.MustCall(t, ops, "abort_task", args("serial", "n1-p1"))
	assert.Contains(t, farmtest.Text(res), "Aborted 1 task(s)")
	a := <-sleeping
	assert.True(t, a.Get(t).IsError, "the aborted sleep succeeded")
	farmtest.MustCall(t, beta, "release_device", args("serial", "n1-p1", "lease", held.Lease.Handle))
}

// Item 8: a session id drives nothing for another principal: beta, given alpha's session
// (which selected n1-p2 and holds its lease), gets 404 and the phone is untouched.
func TestPolicySessionOfAnotherPrincipalRefused(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	url := policyGateway(t, f, mcp.Options{})
	post := func(token, session, body string) (int, string, string) {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
	}
	_, session, _ := post(alphaToken, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"alpha-agent","version":"1"}}}`)
	require.NotEmpty(t, session)
	status, _, body := post(alphaToken, session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"select_device","arguments":{"serial":"n1-p2"}}}`)
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, "Selected device n1-p2")

	status, _, body = post(betaToken, session, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"tap_xy","arguments":{"x":0.5,"y":0.5}}}`)
	assert.Equal(t, http.StatusNotFound, status, body)
	assert.Contains(t, body, `session not found: the Mcp-Session-Id was not issued to principal \"beta\"`)
	assert.Empty(t, f.Phone("n1-p2").InputLog(), "beta drove alpha's selected device")

	status, _, body = post(alphaToken, session, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"tap_xy","arguments":{"x":0.5,"y":0.5}}}`)
	assert.Equal(t, http.StatusOK, status)
	assert.NotContains(t, body, `"isError":true`, body)
}

// Item 6: non-holders hammering a leased device (each answered "busy") use up their own
// budget, not the holder's: after they have been rate limited, the holder's whole burst
// of calls is admitted.
func TestPolicyRateLimitSparesTheHolder(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	url := policyGateway(t, f, mcp.Options{RateLimit: mcp.RateLimit{PerSecond: 2, Burst: 10}})
	beta := mustAuthClient(t, url, "holder", betaToken)
	held := acquire(t, beta, args("serial", "n1-p1"))

	var limited atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 4 {
		c := mustAuthClient(t, url, "hammer", []string{alphaToken, opsToken}[i%2])
		wg.Go(func() {
			for ctx.Err() == nil {
				res, err := farmtest.TryCall(t, c, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5))
				if err == nil && strings.Contains(farmtest.Text(res), "rate limited") {
					limited.Add(1)
				}
			}
		})
	}
	farmtest.Eventually(t, 20*time.Second, func() bool { return limited.Load() >= 4 }, "the non-holders are rate limited")
	for i := range 10 {
		res := farmtest.Call(t, beta, "tap_xy", args("serial", "n1-p1", "lease", held.Lease.Handle, "x", 0.5, "y", 0.5))
		assert.False(t, res.IsError, "holder's tap %d refused: %s", i+1, farmtest.Text(res))
	}
	cancel()
	wg.Wait()
}
