package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// plotter is a test platform's driver: a pen plotter that taps and nothing else.
type plotter struct{ serial string }

func (p plotter) Info() device.Info {
	return device.Info{Serial: p.serial, Platform: "plotter", Model: "A4"}
}
func (plotter) ScreenSize(ctx context.Context) (device.Size, error) {
	return device.Size{Width: 210, Height: 297}, ctx.Err()
}
func (plotter) Screenshot(ctx context.Context) (image.Image, error) {
	return image.NewGray(image.Rect(0, 0, 210, 297)), ctx.Err()
}
func (plotter) Tap(ctx context.Context, _ device.Point, _ time.Duration) error { return ctx.Err() }

// plotterPlatform is a whole platform: its name, what its driver cannot serve, its flag and
// its discovery.
func plotterPlatform() device.Platform {
	return device.Platform{Name: "plotter", Gaps: []string{"back", "input"}, Flags: func(fs *flag.FlagSet) device.Attacher {
		return &plotters{n: fs.Int("plotters", 0, "pen plotters to attach")}
	}}
}

type plotters struct{ n *int }

func (p *plotters) Real(context.Context) bool { return *p.n > 0 }

func (p *plotters) Attach(_ context.Context, reg device.Registry, _ *slog.Logger) (func(), error) {
	for i := 1; i <= *p.n; i++ {
		reg.AddDriver(plotter{serial: fmt.Sprintf("plotter-%d", i)})
	}
	return func() {
		for i := 1; i <= *p.n; i++ {
			reg.RemoveDevice(fmt.Sprintf("plotter-%d", i), "unplugged")
		}
	}, nil
}

// plotterFarm is a node with pen plotters (plotterPlatform) next to Android, and a gateway in
// front of it, on an embedded NATS: c is an MCP client of the gateway.
type plotterFarm struct {
	c        *client.Client
	stopNode func()
}

// startPlotterFarm starts a plotterFarm of n plotters and waits until they are online.
func startPlotterFarm(t *testing.T, n int) *plotterFarm {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })

	ps := []device.Platform{android.Platform(), plotterPlatform()}
	f := newFlags("up")
	gf := f.gatewayFlags()
	node := f.nodeFlags(-1, ps)
	require.NoError(t, f.parse([]string{"--http", "127.0.0.1:0", "--adb", "off", "--plotters", strconv.Itoa(n)}))

	ctx := t.Context()
	reg := newRegistry()
	stopNode, err := startNode(ctx, broker.ConnectOptions{URL: ns.ClientURL()}, node, reg, log)
	require.NoError(t, err)
	farm := &plotterFarm{stopNode: sync.OnceFunc(stopNode)}
	t.Cleanup(farm.stopNode)
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "corral-gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	gw, err := startGateway(ctx, nc, gf, ps, reg, log)
	require.NoError(t, err)
	t.Cleanup(gw.stop)

	farm.c, err = client.NewStreamableHttpClient("http://" + gw.addr + "/mcp")
	require.NoError(t, err)
	t.Cleanup(func() { _ = farm.c.Close() })
	require.NoError(t, farm.c.Start(ctx))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "platform-test", Version: "test"}
	_, err = farm.c.Initialize(ctx, init)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(farm.devices(t, broker.StateOnline)) == n },
		10*time.Second, 20*time.Millisecond, "the plotters never came online")
	return farm
}

// try calls tool on the farm's gateway.
func (f *plotterFarm) try(ctx context.Context, tool string, args map[string]any) (*mcpgo.CallToolResult, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	return f.c.CallTool(ctx, req)
}

// call calls tool on the farm's gateway, failing the test if the call does not get an answer.
func (f *plotterFarm) call(t *testing.T, tool string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	res, err := f.try(t.Context(), tool, args)
	require.NoError(t, err)
	return res
}

// devices lists the farm's devices in state ("" for any).
func (f *plotterFarm) devices(t *testing.T, state string) []mcp.DeviceSummary {
	t.Helper()
	res := f.call(t, "list_available_devices", map[string]any{})
	var out mcp.DeviceListResult
	if res.IsError || res.StructuredContent == nil || remarshal(res.StructuredContent, &out) != nil {
		return nil
	}
	return slices.DeleteFunc(out.Devices, func(d mcp.DeviceSummary) bool { return state != "" && d.State != state })
}

// A new platform is one package and one line in the platform list: registered next to
// Android, the test platform gets its flag, its devices on a real node (instead of the
// simulated phones a node with no device starts), its name in the platform enum, and it is
// named when a tool cannot run on it.
func TestPlatformRegistry(t *testing.T) {
	f := startPlotterFarm(t, 2)
	devices := f.devices(t, "")
	serials := make([]string, 0, len(devices))
	for _, d := range devices {
		assert.Equal(t, "plotter", d.Platform)
		serials = append(serials, d.Serial)
	}
	assert.ElementsMatch(t, []string{"plotter-1", "plotter-2"}, serials, "plotters and no simulated phones")

	tools, err := f.c.ListTools(t.Context(), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	offered := 0
	for _, tool := range tools.Tools {
		if p, ok := tool.InputSchema.Properties["platform"].(map[string]any); ok && p["enum"] != nil {
			assert.ElementsMatch(t, []any{"android", "plotter"}, p["enum"], tool.Name)
			offered++
		}
	}
	assert.Equal(t, 3, offered, "select_device, acquire_device and get_device_status offer the platforms")

	require.False(t, f.call(t, "tap_xy", map[string]any{"serial": "plotter-1", "x": 0.5, "y": 0.5}).IsError)
	res := f.call(t, "back", map[string]any{"serial": "plotter-1"})
	require.True(t, res.IsError)
	assert.Contains(t, resultText(res), "back is not supported on plotter devices; platforms that can: android (0 in this farm)")
}

// A node that stops while a task runs on a device of one of its platforms answers (and
// records) the task as stopped by its shutdown: the node stops before its platforms let go of
// their devices, which would tell it as the device unplugged.
func TestNodeStopsBeforeItsPlatformsLetGo(t *testing.T) {
	f := startPlotterFarm(t, 1)
	answer := make(chan string, 1)
	go func() {
		res, err := f.try(t.Context(), "sleep", map[string]any{"serial": "plotter-1", "seconds": 60})
		if err != nil {
			answer <- err.Error()
			return
		}
		answer <- resultText(res)
	}()
	require.Eventually(t, func() bool { return len(f.devices(t, broker.StateBusy)) == 1 },
		10*time.Second, 20*time.Millisecond, "the sleep never ran")
	f.stopNode()
	text := <-answer
	assert.Contains(t, text, "is shutting down")
	assert.NotContains(t, text, "unplugged")
}

// remarshal decodes a structured result into v.
func remarshal(from any, v any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
