package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A corral gateway stopped (SIGTERM: its context cancelled) while a call runs drains: /readyz
// turns 503 at once, a new session is refused with 503 and Retry-After while it still accepts
// (--drain-delay), and the call, longer than the 5 s a stop used to give, gets its answer
// within --drain-timeout; then the gateway returns.
func TestGatewayDrainAnswersTheCallInFlight(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: platforms()})
	serial := f.Phones()[0].Info().Serial
	addr := freeLoopbackAddr(t)
	ctx, signal := context.WithCancel(t.Context())
	defer signal()
	done := make(chan error, 1)
	go func() {
		done <- runGateway(ctx, []string{"--nats-url", f.URL, "--http", addr, "--drain-timeout", "40s", "--drain-delay", "5s", "--log-level", "error"})
	}()
	c := dialUpGateway(t, addr, done)
	readyz := "http://" + addr + "/readyz"
	require.Eventually(t, func() bool { code, _ := probeGet(t, readyz); return code == http.StatusOK }, 30*time.Second, 20*time.Millisecond,
		"the gateway never turned ready")

	type answer struct {
		res *mcpgo.CallToolResult
		err error
	}
	call := make(chan answer, 1)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "sleep", map[string]any{"serial": serial, "seconds": 8}
		res, err := c.CallTool(t.Context(), req)
		call <- answer{res, err}
	}()
	busy := func() bool {
		for _, d := range f.Devices() {
			if d.Serial == serial {
				return d.State == broker.StateBusy
			}
		}
		return false
	}
	require.Eventually(t, busy, 30*time.Second, 20*time.Millisecond, "the sleep never started")

	signal() // SIGTERM
	require.Eventually(t, func() bool {
		code, _ := probeGet(t, readyz)
		return code == http.StatusServiceUnavailable
	}, 5*time.Second, 10*time.Millisecond, "/readyz did not turn 503 while the gateway drained")

	// A new session, while the gateway still accepts: refused cleanly, to be tried again.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(init))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err, "the draining gateway stopped accepting before --drain-delay")
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(body))
	assert.Equal(t, "1", resp.Header.Get("Retry-After"))
	assert.Contains(t, string(body), drainRefusal)

	select {
	case a := <-call:
		require.NoError(t, a.err, "the call was cut while the gateway drained")
		require.False(t, a.res.IsError, farmtest.Text(a.res))
		assert.Contains(t, farmtest.Text(a.res), "slept 8 seconds")
	case <-time.After(60 * time.Second):
		t.Fatal("the call never returned")
	}
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("the gateway did not return once its call was answered")
	}
}

// --drain-timeout and --drain-delay refuse negative durations and a delay beyond the timeout.
func TestDrainFlagsCheck(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--drain-timeout", "0s"}, ""},
		{[]string{"--drain-timeout", "25s", "--drain-delay", "5s"}, ""},
		{[]string{"--drain-timeout", "-1s"}, "--drain-timeout -1s: give a duration of 0 (no wait) or more"},
		{[]string{"--drain-delay", "-1s"}, "--drain-delay -1s: give a duration of 0 (no wait) or more"},
		{[]string{"--drain-timeout", "5s", "--drain-delay", "10s"}, "is longer than --drain-timeout"},
	} {
		f := newFlags("gateway")
		gf := f.gatewayFlags()
		require.NoError(t, f.parse(c.args))
		err := gf.drain.check()
		if c.want == "" {
			assert.NoError(t, err, c.args)
		} else if assert.Error(t, err, c.args) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}

// corral up's -h does not promise the calls in flight --drain-timeout to finish: its node, in
// the same process, stops at once; corral gateway's still does.
func TestUpDrainTimeoutHelpSaysItsNodeStopsAtOnce(t *testing.T) {
	up := captureOutput(t, func() { realMain([]string{"up", "-h"}) })
	assert.Contains(t, strings.Join(strings.Fields(up), " "), "the node of this process stops at once")
	assert.NotContains(t, up, "have to finish")
	gw := captureOutput(t, func() { realMain([]string{"gateway", "-h"}) })
	assert.Contains(t, gw, "the calls in flight have to finish")
}
