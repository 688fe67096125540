package main

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// A node's NATS user made the event stream before any gateway started, with the gateway's inbox
// among its subjects and a republish to its own: the node starting on it says so and serves;
// the gateway's start asks nothing before it has removed those subjects, so of its start and
// its calls (the node's answers, a lease handle among them) nothing lands in the store but the
// answer that found it, which holds that store's own info.
func TestGatewayRepliesNeverLandInATamperedStore(t *testing.T) {
	secrets, err := broker.OpenSecrets(t.TempDir())
	require.NoError(t, err)
	users, err := broker.FarmUsers([]string{"n1"}, secrets.Password)
	require.NoError(t, err)
	serverUsers, err := embeddedUsers(users)
	require.NoError(t, err)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: serverUsers}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	contexts, err := secrets.WriteContexts(ns.ClientURL(), "", users)
	require.NoError(t, err)
	as := func(user string) broker.ConnectOptions { return broker.ConnectOptions{Context: contexts[user]} }
	ctx := t.Context()

	nodeConn, err := broker.Connect(as("node-n1"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nodeConn.Close)
	nodeJS, err := jetstream.New(nodeConn)
	require.NoError(t, err)
	_, err = nodeJS.CreateStream(ctx, jetstream.StreamConfig{Name: broker.EventStream, Subjects: []string{broker.Events, "_INBOX_gateway.>"},
		Storage: jetstream.FileStorage, AllowDirect: true, RePublish: &jetstream.RePublish{Source: ">", Destination: "_INBOX_node-n1.spy.>"}})
	require.NoError(t, err)

	ps := []device.Platform{android.Platform(), plotterPlatform()}
	f := newFlags("up")
	gf := f.gatewayFlags()
	node := f.nodeFlags(0, ps)
	require.NoError(t, f.parse([]string{"--http", "127.0.0.1:0", "--node-id", "n1", "--adb", "off", "--plotters", "1"}))
	var nodeLog, gatewayLog logtest.Buffer
	stopNode, err := startNode(ctx, as("node-n1"), node, newRegistry(), slog.New(slog.NewTextHandler(&nodeLog, nil)))
	require.NoError(t, err, "a node serves on a store it may not repair")
	t.Cleanup(stopNode)
	warned := nodeLog.Line("store differs from Corral's")
	for _, said := range []string{"stream=" + broker.EventStream, "subjects _INBOX_gateway.>", "republish of > to _INBOX_node-n1.spy.>", "start a gateway"} {
		assert.Contains(t, warned, said)
	}

	gwConn, err := broker.Connect(as("gateway"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(gwConn.Close)
	gw, err := startGateway(ctx, gwConn, gf, ps, newRegistry(), slog.New(slog.NewTextHandler(&gatewayLog, nil)))
	require.NoError(t, err)
	t.Cleanup(gw.stop)
	assert.Contains(t, gatewayLog.Line("its subjects took this process's replies"), "removed=\"subjects _INBOX_gateway.>\"")

	c, err := client.NewStreamableHttpClient("http://" + gw.addr + "/mcp")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(ctx))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "tamper-test", Version: "test"}
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	call := func(tool string, args map[string]any) *mcpgo.CallToolResult {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		require.NoError(t, err)
		require.False(t, res.IsError, "%s: %s", tool, resultText(res))
		return res
	}
	require.Eventually(t, func() bool {
		var out mcp.DeviceListResult
		res := call("list_available_devices", map[string]any{})
		return remarshal(res.StructuredContent, &out) == nil && len(out.Devices) == 1 && out.Devices[0].State == broker.StateOnline
	}, 10*time.Second, 20*time.Millisecond, "the plotter never came online")
	call("select_device", map[string]any{"serial": "plotter-1"}) // its lease, the node's answer, a handle in it
	call("tap_xy", map[string]any{"serial": "plotter-1", "x": 0.5, "y": 0.5})
	call("release_device", map[string]any{"serial": "plotter-1"})

	gwJS, err := jetstream.New(gwConn)
	require.NoError(t, err)
	st, err := gwJS.Stream(ctx, broker.EventStream)
	require.NoError(t, err)
	assert.Equal(t, []string{broker.Events}, st.CachedInfo().Config.Subjects)
	var landed []string
	for seq := st.CachedInfo().State.FirstSeq; seq <= st.CachedInfo().State.LastSeq; seq++ {
		m, err := st.GetMsg(ctx, seq)
		require.NoError(t, err)
		if strings.HasPrefix(m.Subject, "_INBOX_gateway.") {
			landed = append(landed, string(m.Data))
		}
	}
	require.Len(t, landed, 1, "the gateway's replies in the tampered store:\n%s", strings.Join(landed, "\n"))
	var found struct {
		Type    string `json:"type"`
		Streams []struct {
			Config struct{ Name string } `json:"config"`
		} `json:"streams"`
	}
	require.NoError(t, json.Unmarshal([]byte(landed[0]), &found))
	assert.Equal(t, "io.nats.jetstream.api.v1.stream_list_response", found.Type)
	require.Len(t, found.Streams, 1)
	assert.Equal(t, broker.EventStream, found.Streams[0].Config.Name)
}

// corral up repairs the stores before its node and gateway start, and says what it repaired:
// its gateway's start after it finds nothing left to say.
func TestUpSaysTheStoresItRepaired(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = js.CreateStream(t.Context(), jetstream.StreamConfig{Name: broker.EventStream, Subjects: []string{broker.Events, "spy.>"},
		Storage: jetstream.FileStorage, AllowDirect: true})
	require.NoError(t, err)
	f := newFlags("up")
	gf := f.gatewayFlags()
	require.NoError(t, f.parse(nil))
	var logged logtest.Buffer
	require.NoError(t, ensureUpStores(t.Context(), nc, gf, slog.New(slog.NewTextHandler(&logged, nil))))
	assert.Contains(t, logged.Line("store repaired"), `removed="subjects spy.>"`)
}
