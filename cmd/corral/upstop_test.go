package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp"
)

// Stopping corral up while a call through its gateway runs cancels the call's task at once: up
// returns before the gateway's drain limit has passed (it waited for the call before the node
// that would end it was stopped), and the caller gets the tool's answer
// that the task was stopped because the node shuts down, not a broken connection. Neither an
// agent's open listen stream (GET) holds the stop, nor --max-conns all taken (the stop waited
// for a connection to end before it stopped the node: forever).
func TestUpStopAnswersTheCallInFlight(t *testing.T) {
	t.Run("listen stream open", func(t *testing.T) {
		stopUpWithACallInFlight(t, nil, transport.WithContinuousListening())
	})
	t.Run("every connection taken", func(t *testing.T) {
		stopUpWithACallInFlight(t, []string{"--max-conns", "1"})
	})
}

// stopUpWithACallInFlight starts corral up with args added, calls a long sleep through its
// gateway with a client made with opts, stops up while the sleep runs, and checks how it ends.
func stopUpWithACallInFlight(t *testing.T, args []string, opts ...transport.StreamableHTTPCOption) {
	const grace = time.Second
	addr := freeLoopbackAddr(t)
	data := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- runUp(ctx, append([]string{"--data", data, "--nats-port", "-1", "--http", addr,
			"--sim", "1", "--adb", "off", "--usbmuxd", "off", "--grace", grace.String(), "--log-level", "error"}, args...))
	}()
	stopped := false
	defer func() {
		if stopped {
			return
		}
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second): // left running: the test has failed already
			t.Error("corral up never returned after it was stopped")
		}
	}()

	c := dialUpGateway(t, addr, done, opts...)
	online := func() bool {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "list_available_devices", map[string]any{}
		res, err := c.CallTool(t.Context(), req)
		var out mcp.DeviceListResult
		if err != nil || res.IsError || res.StructuredContent == nil || remarshal(res.StructuredContent, &out) != nil {
			return false
		}
		return slices.ContainsFunc(out.Devices, func(d mcp.DeviceSummary) bool {
			return d.Serial == "sim-local-01" && d.State == broker.StateOnline
		})
	}
	require.Eventually(t, online, 60*time.Second, 50*time.Millisecond, "the simulated phone never came online")
	// The sleep's start is seen in NATS: the gateway may have no connection left to ask on.
	nc, err := broker.Connect(broker.ConnectOptions{Context: filepath.Join(data, "nats", "admin.json")}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	registry, err := js.KeyValue(t.Context(), broker.RegistryBucket)
	require.NoError(t, err)
	busy := func() bool {
		e, err := registry.Get(t.Context(), broker.RegistryKey("local", "sim-local-01"))
		var d broker.DeviceEntry
		return err == nil && json.Unmarshal(e.Value(), &d) == nil && d.State == broker.StateBusy
	}

	type answer struct {
		res *mcpgo.CallToolResult
		err error
	}
	call := make(chan answer, 1)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "sleep", map[string]any{"serial": "sim-local-01", "seconds": 60}
		res, err := c.CallTool(t.Context(), req)
		call <- answer{res, err}
	}()
	require.Eventually(t, busy, 30*time.Second, 20*time.Millisecond, "the sleep never started")
	nc.Close()

	cancel() // Ctrl-C
	start := time.Now()
	select {
	case err := <-done:
		stopped = true
		require.NoError(t, err)
	case <-time.After(60 * time.Second): // the stop that waited for a connection to end never returned
		t.Fatal("corral up still running a minute after it was stopped, with a call in flight")
	}
	// A stop that waited for the call, or for the listen stream, before it stopped the node
	// waited out the gateway's drain limit: the stop itself, even on a loaded machine, is well
	// within it.
	assert.Less(t, time.Since(start), defaultDrainTimeout, "corral up waited for the call or the listen stream before stopping the node")
	select {
	case a := <-call:
		require.NoError(t, a.err, "the caller got no answer, only a broken connection")
		require.True(t, a.res.IsError, "a stopped sleep is an error")
		require.NotEmpty(t, a.res.Content)
		text, _ := a.res.Content[0].(mcpgo.TextContent)
		assert.Contains(t, text.Text, "node local is shutting down and stopped sleep on sim-local-01")
	case <-time.After(10 * time.Second):
		t.Fatal("corral up stopped, and the call through its gateway never returned")
	}
}

// dialUpGateway is an initialized MCP client, made with opts, of the gateway corral up serves
// on addr; done is where up's end is, in case it stops while starting. A failed try lets its
// connections go: with --max-conns 1 one left open would hold the only one.
func dialUpGateway(t *testing.T, addr string, done chan error, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	var c *client.Client
	var ended error
	require.Eventually(t, func() bool {
		select {
		case err := <-done:
			done <- err
			ended = fmt.Errorf("corral up ended while starting: %v", err)
			return true
		default:
		}
		hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		cl, err := client.NewStreamableHttpClient("http://"+addr+"/mcp", append(opts, transport.WithHTTPBasicClient(hc))...)
		if err != nil {
			return false
		}
		init := mcpgo.InitializeRequest{}
		init.Params.ClientInfo = mcpgo.Implementation{Name: "upstop-test", Version: "test"}
		if err := cl.Start(t.Context()); err == nil {
			if _, err = cl.Initialize(t.Context(), init); err == nil {
				c = cl
				return true
			}
		}
		_ = cl.Close()
		hc.CloseIdleConnections()
		return false
	}, 60*time.Second, 50*time.Millisecond, "corral up's gateway never answered")
	require.NoError(t, ended)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// freeLoopbackAddr is a loopback address free now, for a command that takes an address, not a
// listener.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = l.Close() }()
	return l.Addr().String()
}
