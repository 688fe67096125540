package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// A gateway started with --sessions-max-bytes under what the sessions' bucket holds (1MiB over
// some 2 MiB) says so in one WARN line at its start, with what the bucket holds, the new cap and
// what to do, and its /metrics show the bucket over its cap; before, nothing was said until new
// sessions failed one by one.
func TestGatewayStartedUnderWhatTheSessionsHoldSaysSo(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "corral-gateway"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	ctx := t.Context()
	small := broker.StoreOptions{EventsMaxBytes: 8 << 20, ScreenshotsMaxBytes: 8 << 20, SessionsMaxBytes: 4 << 20}
	stores, err := broker.EnsureStores(ctx, nc, small)
	require.NoError(t, err)
	value := []byte(strings.Repeat("x", 2000))
	for i := 0; i < 1100; i++ { // some 2.2 MiB
		_, err := stores.Sessions.Put(ctx, fmt.Sprintf("s%d", i), value)
		require.NoError(t, err)
	}

	f := newFlags("gateway")
	gf := f.gatewayFlags()
	require.NoError(t, f.parse([]string{"--http", "127.0.0.1:0", "--events-max-bytes", "8MiB", "--screenshots-max-bytes", "8MiB",
		"--sessions-max-bytes", "1MiB"}))
	var log logtest.Buffer
	reg := newRegistry()
	gw, err := startGateway(ctx, nc, gf, []device.Platform{android.Platform()}, reg, slog.New(slog.NewTextHandler(&log, nil)))
	require.NoError(t, err)
	t.Cleanup(gw.stop)

	const warning = "the sessions' bucket holds more than --sessions-max-bytes"
	line := log.Line(warning)
	require.NotEmpty(t, line, "the start said nothing; log:\n%s", log.String())
	assert.Contains(t, line, "level=WARN")
	assert.Regexp(t, `holds=2\.\dMiB limit=1MiB`, line)
	assert.Contains(t, line, "raise --sessions-max-bytes")
	assert.Equal(t, 1, strings.Count(log.String(), warning), "one line a start")

	resp, err := http.Get("http://" + gw.addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	gauge := func(name string) float64 {
		m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
		require.NotNil(t, m, "no %s in /metrics", name)
		v, err := strconv.ParseFloat(string(m[1]), 64)
		require.NoError(t, err)
		return v
	}
	assert.Equal(t, float64(1<<20), gauge("corral_sessions_store_max_bytes"))
	assert.Greater(t, gauge("corral_sessions_store_bytes"), gauge("corral_sessions_store_max_bytes"), "/metrics show the bucket over its cap")
}
