package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/mcp"
)

// oldGateway serves list_available_devices and list_leases over mcp-go's streamable HTTP as
// the gateway of Corral d359bd9 (before paging) did: no summary, no cursor, every row at once;
// list_available_devices takes any argument and ignores it, list_leases refuses every one.
func oldGateway(t *testing.T, devices []mcp.DeviceSummary, leases []mcp.LeaseInfo) string {
	t.Helper()
	s := mcpserver.NewMCPServer("corral", "0.1.0-dev")
	s.AddTool(mcpgo.NewTool("list_available_devices", mcpgo.WithDescription("List the farm's devices with platform, model, node and state.")),
		func(_ context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			out := map[string]any{"androidDevices": []string{}, "iosDevices": []string{}, "devices": devices}
			return mcpgo.NewToolResultStructured(out, "devices"), nil
		})
	s.AddTool(mcpgo.NewTool("list_leases", mcpgo.WithDescription("List the leases of the farm.")),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			for k := range req.GetArguments() { // tools.NoArgs, decoded strictly
				return mcpgo.NewToolResultError(fmt.Sprintf("unknown argument %q; list_leases takes: ", k)), nil
			}
			return mcpgo.NewToolResultStructured(map[string]any{"leases": leases}, "leases"), nil
		})
	srv := httptest.NewServer(mcpserver.NewStreamableHTTPServer(s))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// corral devices against a gateway that sends no summary counts the rows it got, not 0, and
// says on stderr that the gateway is older (and that it may have ignored the filters).
func TestDevicesOfAnOlderGateway(t *testing.T) {
	var devs []mcp.DeviceSummary
	for i := range 5 {
		devs = append(devs, mcp.DeviceSummary{Serial: fmt.Sprintf("sim-%02d", i), Platform: "android", Node: "n1", State: "online"})
	}
	gw := oldGateway(t, devs, nil)

	var err error
	var out string
	errOut := captureStderr(t, func() { out = captureStdout(t, func() { err = runDevices(t.Context(), []string{"--gateway", gw}) }) })
	require.NoError(t, err, out)
	assert.Equal(t, 5, strings.Count(out, "\nsim-0"), out)
	assert.Contains(t, out, "\n5 devices: android 5; online 5; n1 5\n")
	assert.NotContains(t, out, "0 devices")
	assert.Contains(t, errOut, "older Corral")

	errOut = captureStderr(t, func() {
		out = captureStdout(t, func() { err = runDevices(t.Context(), []string{"--gateway", gw, "--limit", "2", "--platform", "ios"}) })
	})
	require.NoError(t, err, out)
	assert.Contains(t, out, "2 of 5 devices shown")
	assert.Equal(t, 1, strings.Count(out, "sim-01"), out)
	assert.NotContains(t, out, "sim-02")
	assert.Contains(t, errOut, "--platform", "the filter the gateway may have ignored is named")
}

// corral leases against a gateway whose list_leases takes no arguments: the page size the CLI
// sends itself is dropped and the call made again; a filter the user gave is refused with
// what to do.
func TestLeasesOfAnOlderGateway(t *testing.T) {
	exp := time.Now().Add(time.Hour)
	leases := []mcp.LeaseInfo{
		{Serial: "sim-00", Holder: "alice", Epoch: 1, ExpiresAt: exp, MaxUntil: exp},
		{Serial: "sim-01", Holder: "bob", Epoch: 2, ExpiresAt: exp, MaxUntil: exp},
	}
	gw := oldGateway(t, nil, leases)

	var err error
	var out string
	captureStderr(t, func() { out = captureStdout(t, func() { err = runLeases(t.Context(), []string{"--gateway", gw}) }) })
	require.NoError(t, err, out)
	assert.Regexp(t, row("sim-00", "alice"), out)
	assert.Regexp(t, row("sim-01", "bob"), out)
	assert.Contains(t, out, "\n2 leases\n")

	captureStdout(t, func() { err = runLeases(t.Context(), []string{"--gateway", gw, "--holder", "alice"}) })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "older Corral")
	assert.Contains(t, err.Error(), "--holder")
}
