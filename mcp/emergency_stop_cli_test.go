package mcp_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// cliGateway is what `corral call` without --gateway makes: a fresh farm client of its own
// and a gateway over it in process.
type cliGateway struct {
	farm   *broker.Client
	mcp    *client.Client
	stores *broker.Stores
}

func startCLIGateway(t *testing.T, f *farmtest.Farm) *cliGateway {
	t.Helper()
	nc, err := broker.Connect(f.Connect("", "corral-cli"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(func() { cancel(); nc.Close() })
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{CreateOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	farm, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{})
	if err == nil {
		err = farm.WaitReady(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	g := mcp.New(farm, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()),
		mcp.Options{Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	c, err := client.NewInProcessClient(g.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "corral-cli", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return &cliGateway{farm: farm, mcp: c, stores: stores}
}

// emergency_stop from the CLI (a fresh farm client) on a rig that is offline, on a node whose
// only device it is, reaches the node, which keeps the halt: the rig comes back halted. The
// CLI answered at once "node n2 is lost (no heartbeat for 2.5s) …" though the node was
// alive, and no halt was kept: the client had not heard the node beat yet, and expected only
// nodes with online devices. The answer says the halt is recorded but that nothing could
// tell the rig to stop (it said "its machine is halted until arm_recover").
func TestEmergencyStopFromTheCLIOnAnOfflineRigReachesItsNode(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	f.StartNode("n2", 0) // the rig's node has no other device
	tw, err := twin.Start(twin.Options{Seed: 7, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })
	serial := tw.Phone.Info().Serial
	stop := f.ServeArmTwin("n2", tw)
	stop() // the rig leaves its node, as when its simulator is killed
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOffline
	}, "the rig offline")

	// The call must leave before the CLI hears n2's first beat (what the CLI's one command
	// does): a client that heard one already is set aside for a new one.
	// The call goes at once after the look (farmtest.Call would list the tools first).
	var cli *cliGateway
	for range 50 {
		cli = startCLIGateway(t, f)
		if !slices.Contains(cli.farm.Nodes(), "n2") {
			break
		}
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "emergency_stop", map[string]any{"serial": serial}
	res, err := cli.mcp.CallTool(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("emergency_stop from a fresh client on an offline rig: %s", farmtest.Text(res))
	}
	var out struct {
		Message string `json:"message"`
		Halted  bool   `json:"halted"`
	}
	farmtest.Structured(t, res, &out)
	if !out.Halted {
		t.Errorf("emergency_stop on an offline rig: halted false (%s)", out.Message)
	}
	for _, want := range []string{"offline", "could not be told to stop now", "cut its power", "halt is recorded", "comes back halted"} {
		if !strings.Contains(out.Message, want) {
			t.Errorf("emergency_stop's message on an offline rig %q lacks %q", out.Message, want)
		}
	}
	if strings.Contains(out.Message, "its machine is halted") {
		t.Errorf("emergency_stop's message on an offline rig says it halted: %q", out.Message)
	}
	e, err := cli.stores.Calibrations.Get(t.Context(), broker.HaltKey("n2", serial))
	if err != nil {
		t.Fatalf("the offline rig's halt not kept in KV: %v", err)
	}
	if !strings.Contains(string(e.Value()), "emergency_stop") {
		t.Errorf("the kept halt reads %q", e.Value())
	}

	// abort_task all from another fresh client reaches the node too.
	abort := farmtest.Call(t, startCLIGateway(t, f).mcp, "abort_task", map[string]any{"serial": serial, "all": true})
	if abort.IsError {
		t.Errorf("abort_task all from a fresh client on an offline rig: %s", farmtest.Text(abort))
	}

	f.ServeArmTwinAs("n2", tw, broker.StateUnhealthy) // back, and halted (unhealthy "starting" a moment before)
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		stop, ok := device.ParseStop(d.Reason)
		return ok && strings.Contains(stop.By, "corral-cli") && !stop.At.IsZero()
	}, "the rig back, halted by the CLI's emergency_stop")
}
