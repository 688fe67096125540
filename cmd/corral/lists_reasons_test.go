package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// drainedFarm is a farm with NATS roles whose node n1, with three phones, the admin drained:
// each phone is draining, for the reason "node n1 is draining".
func drainedFarm(t *testing.T) *farmtest.Farm {
	t.Helper()
	noNATSSettings(t)
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 3, Auth: true})
	var code int
	out := captureStdout(t, func() { code = realMain([]string{"drain", "--nats-context", f.Context("admin"), "n1"}) })
	require.Equal(t, 0, code, out)
	f.WaitDevices(3, broker.StateDraining)
	return f
}

// corralMain runs corral with args as realMain does, and returns its exit code, standard
// output and standard error.
func corralMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	stdout = captureStdout(t, func() { stderr = captureStderr(t, func() { code = realMain(args) }) })
	return code, stdout, stderr
}

// The operator's `corral devices` (NATS, the in-process front door) shows the reason of every
// device out of service, in the table and in --json, as the admin's does. Its front door read
// its own session's selection from corral_sessions, which an operator may not read: the refusal
// of the first device's read ended the command's context, and the other devices showed none.
func TestOperatorDevicesShowEveryReason(t *testing.T) {
	f := drainedFarm(t)
	for _, user := range []string{broker.UserName(broker.RoleOperator, ""), "admin"} {
		code, out, errOut := corralMain(t, "devices", "--nats-context", f.Context(user))
		require.Equal(t, 0, code, "%s\n%s", out, errOut)
		assert.Equal(t, 3, strings.Count(out, "node n1 is draining"), "corral devices as %s:\n%s", user, out)
		assert.Empty(t, errOut, "corral devices as %s", user)

		code, out, errOut = corralMain(t, "devices", "--json", "--nats-context", f.Context(user))
		require.Equal(t, 0, code, "%s\n%s", out, errOut)
		var got struct {
			Devices []deviceRow `json:"devices"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		require.Len(t, got.Devices, 3, out)
		for _, d := range got.Devices {
			assert.Equal(t, "node n1 is draining", d.Reason, "corral devices --json as %s: %s", user, d.Serial)
		}
		assert.Empty(t, errOut, "corral devices --json as %s", user)
	}
}

// operatorClient is the operator's in-process front door on f, within ctx, which the refusals
// of its NATS connection end (as realMain's does).
func operatorClient(t *testing.T, ctx context.Context, f *farmtest.Farm) *client.Client {
	t.Helper()
	o := newOperatorFlags("devices")
	stop, err := o.start([]string{"--nats-context", f.Context(broker.UserName(broker.RoleOperator, ""))}, nil)
	require.NoError(t, err)
	require.False(t, stop)
	c, closeAll, err := o.dial(ctx)
	require.NoError(t, err)
	t.Cleanup(closeAll)
	return c
}

// draining are the drained farm's devices as list_available_devices gives them, after gone, a
// device that left the farm since.
func draining(t *testing.T, f *farmtest.Farm, gone string) []mcp.DeviceSummary {
	t.Helper()
	devs := []mcp.DeviceSummary{{Serial: gone, Platform: "android", Node: "n1", State: broker.StateOffline}}
	for _, d := range f.Devices() {
		devs = append(devs, mcp.DeviceSummary{Serial: d.Serial, Platform: d.Platform, Node: d.Node, State: d.State})
	}
	return devs
}

// One device whose reason cannot be read (it left the farm since the list) is named in the
// error, once, and the devices after it still get theirs: a failed call ends nothing.
func TestDeviceReasonsGoOnPastAFailedCall(t *testing.T) {
	f := drainedFarm(t)
	ctx, stop := withRefusals(t.Context(), broker.NewRefusals())
	defer stop()
	c := operatorClient(t, ctx, f)

	reasons, err := deviceReasons(ctx, c, draining(t, f, "gone-1"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no reason shown for gone-1: get_device_status: ")
	assert.Contains(t, err.Error(), `unknown device "gone-1"`)
	assert.NotContains(t, err.Error(), "n1-p")
	for _, s := range []string{"n1-p1", "n1-p2", "n1-p3"} {
		assert.Equal(t, "node n1 is draining", reasons[s], s)
	}
}

// A NATS refusal ends the command's context (broker.Refusals): the reasons not read are named
// once, with the refusal, what to do about it, not "context canceled".
func TestDeviceReasonsAfterARefusalSayWhy(t *testing.T) {
	f := drainedFarm(t)
	ctx, stop := withRefusals(t.Context(), broker.NewRefusals())
	defer stop()
	c := operatorClient(t, ctx, f)
	_, err := operatorCall(ctx, c, "abort_task", map[string]any{"serial": "n1-p1"}) // a node request: refused
	require.Error(t, err)
	require.Error(t, ctx.Err(), "the refusal ends the command's context")

	reasons, err := deviceReasons(ctx, c, draining(t, f, "gone-1"))
	require.Error(t, err)
	assert.Empty(t, reasons)
	msg := err.Error()
	assert.Contains(t, msg, "no reason shown for gone-1, n1-p1, n1-p2, n1-p3: get_device_status: ")
	assert.Contains(t, msg, `NATS refused to let NATS user "operator" publish to "corral.v1.node.n1.`)
	assert.NotContains(t, msg, "context canceled")
}

// operatorCall is one tools/call on c.
func operatorCall(ctx context.Context, c *client.Client, tool string, args map[string]any) (string, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := callOn(ctx, c, req)
	if res != nil {
		return resultText(res), err
	}
	return "", err
}

// A gateway that serves no get_device_status (--tools httprunner) lists the devices: corral
// devices prints them, and says once on stderr that their reasons could not be read, and why,
// rather than leave the column blank in silence.
func TestDevicesSaysWhyReasonsAreMissing(t *testing.T) {
	f := drainedFarm(t)
	nc, err := broker.Connect(f.Connect("gateway", "gateway-httprunner"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	bc, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{})
	require.NoError(t, err)
	require.NoError(t, bc.WaitReady(ctx))
	tools, err := mcp.SelectTools("httprunner")
	require.NoError(t, err)
	g := mcp.New(bc, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Tools: tools})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)

	for _, asJSON := range []bool{false, true} {
		args, row := []string{"devices", "--gateway", hs.URL + "/mcp"}, "\nn1-p"
		if asJSON {
			args, row = append(args, "--json"), `"serial":"n1-p`
		}
		code, out, errOut := corralMain(t, args...)
		require.Equal(t, 0, code, "%s\n%s", out, errOut)
		assert.Equal(t, 3, strings.Count(out, row), out)
		assert.Equal(t, 1, strings.Count(errOut, "corral devices: "), errOut)
		assert.Contains(t, errOut, "corral devices: no reason shown for n1-p1, n1-p2, n1-p3: get_device_status: ")
		assert.Contains(t, errOut, "is not served by this gateway")
		assert.NotContains(t, errOut, "get_device_status: get_device_status")
	}
}
