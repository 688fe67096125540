package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"log/slog"
	"strings"
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

// A new platform is one package and one line in the platform list: registered next to
// Android, the test platform gets its flag, its devices on a real node (instead of the
// simulated phones a node with no device starts), its name in the platform enum, and it is
// named when a tool cannot run on it.
func TestPlatformRegistry(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })

	ps := []device.Platform{android.Platform(), plotterPlatform()}
	f := newFlags("up")
	gf := f.gatewayFlags()
	node := f.nodeFlags(-1, ps)
	require.NoError(t, f.parse([]string{"--http", "127.0.0.1:0", "--adb", "off", "--plotters", "2"}))

	ctx := t.Context()
	reg := newRegistry()
	stopNode, err := startNode(ctx, broker.ConnectOptions{URL: ns.ClientURL()}, node, reg, log)
	require.NoError(t, err)
	t.Cleanup(stopNode)
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "corral-gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	gw, err := startGateway(ctx, nc, gf, ps, reg, log)
	require.NoError(t, err)
	t.Cleanup(gw.stop)

	c, err := client.NewStreamableHttpClient("http://" + gw.addr + "/mcp")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(ctx))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "platform-test", Version: "test"}
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	call := func(tool string, args map[string]any) *mcpgo.CallToolResult {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		require.NoError(t, err)
		return res
	}
	text := func(res *mcpgo.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(mcpgo.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}

	var devices []mcp.DeviceSummary
	require.Eventually(t, func() bool {
		res := call("list_available_devices", map[string]any{})
		var out mcp.DeviceListResult
		if res.IsError || res.StructuredContent == nil {
			return false
		}
		if err := remarshal(res.StructuredContent, &out); err != nil {
			return false
		}
		devices = out.Devices
		online := 0
		for _, d := range devices {
			if d.State == broker.StateOnline {
				online++
			}
		}
		return online == 2
	}, 10*time.Second, 20*time.Millisecond, "the two plotters never came online")
	serials := make([]string, 0, len(devices))
	for _, d := range devices {
		assert.Equal(t, "plotter", d.Platform)
		serials = append(serials, d.Serial)
	}
	assert.ElementsMatch(t, []string{"plotter-1", "plotter-2"}, serials, "plotters and no simulated phones")

	tools, err := c.ListTools(ctx, mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	offered := 0
	for _, tool := range tools.Tools {
		if p, ok := tool.InputSchema.Properties["platform"].(map[string]any); ok && p["enum"] != nil {
			assert.ElementsMatch(t, []any{"android", "plotter"}, p["enum"], tool.Name)
			offered++
		}
	}
	assert.Equal(t, 3, offered, "select_device, acquire_device and get_device_status offer the platforms")

	require.False(t, call("tap_xy", map[string]any{"serial": "plotter-1", "x": 0.5, "y": 0.5}).IsError)
	res := call("back", map[string]any{"serial": "plotter-1"})
	require.True(t, res.IsError)
	assert.Contains(t, text(res), "back is not supported on plotter devices; platforms that can: android (0 in this farm)")
}

// remarshal decodes a structured result into v.
func remarshal(from any, v any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
