package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// A corral node started before any gateway makes the missing stores with the caps of its
// --events-max-bytes and --screenshots-max-bytes (here from CORRAL_SCREENSHOTS_MAX_BYTES), not
// the 1 GiB defaults.
func TestNodeMakesMissingStoresWithTheFlagsCaps(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	t.Setenv("CORRAL_SCREENSHOTS_MAX_BYTES", "5MiB")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runNode(ctx, []string{"--nats-url", ns.ClientURL(), "--node-id", "n1", "--adb", "off", "--usbmuxd", "off",
			"--metrics", "", "--log-level", "error", "--events-max-bytes", "4MiB"})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			assert.ErrorIs(t, err, context.Canceled, "stopped while it was still starting")
		}
	}()
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "test"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	caps := map[string]int64{}
	require.Eventually(t, func() bool {
		select {
		case err := <-done: // the node stopped: its error is asserted as the test ends
			done <- err
			return true
		default:
		}
		for _, name := range []string{broker.EventStream, "OBJ_" + broker.ScreenshotBucket} {
			st, err := js.Stream(t.Context(), name)
			if err != nil {
				return false
			}
			caps[name] = st.CachedInfo().Config.MaxBytes
		}
		return true
	}, 60*time.Second, 50*time.Millisecond, "the node never made its stores")
	require.Len(t, caps, 2, "the node stopped before it made its stores")
	assert.Equal(t, int64(4<<20), caps[broker.EventStream])
	assert.Equal(t, int64(5<<20), caps["OBJ_"+broker.ScreenshotBucket])
}

// A size corral node cannot read, or below 1MiB, is refused before it starts, naming the flag
// (and where its value came from) and what to give.
func TestNodeRefusesABadStoreSize(t *testing.T) {
	err := runNode(t.Context(), []string{"--nats-url", "nats://127.0.0.1:1", "--adb", "off", "--usbmuxd", "off",
		"--metrics", "", "--events-max-bytes", "lots"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--events-max-bytes "lots": give a size of at least 1MiB, e.g. 1GiB or 100MiB`)

	t.Setenv("CORRAL_SCREENSHOTS_MAX_BYTES", "512KiB")
	err = runNode(t.Context(), []string{"--nats-url", "nats://127.0.0.1:1", "--adb", "off", "--usbmuxd", "off", "--metrics", ""})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--screenshots-max-bytes "512KiB": give a size of at least 1MiB`)
	assert.Contains(t, err.Error(), "CORRAL_SCREENSHOTS_MAX_BYTES")
}
