package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/diskfree"
)

// A fresh corral up makes its stores with the caps of its flags, the event stream's included.
func TestUpMakesItsStoresWithTheFlagsCaps(t *testing.T) {
	data := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- runUp(ctx, []string{"--data", data, "--nats-port", "-1", "--http", "127.0.0.1:0", "--sim", "1", "--log-level", "error",
			"--events-max-bytes", "8MiB", "--screenshots-max-bytes", "10MiB"})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			assert.ErrorIs(t, err, context.Canceled, "stopped while it was still starting")
		}
	}()
	caps := func() (events, shots int64, err error) {
		nc, err := broker.Connect(broker.ConnectOptions{Context: filepath.Join(data, "nats", "admin.json")}, slog.New(slog.DiscardHandler))
		if err != nil {
			return 0, 0, err
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return 0, 0, err
		}
		for name, into := range map[string]*int64{broker.EventStream: &events, "OBJ_" + broker.ScreenshotBucket: &shots} {
			st, err := js.Stream(t.Context(), name)
			if err != nil {
				return 0, 0, err
			}
			*into = st.CachedInfo().Config.MaxBytes
		}
		return events, shots, nil
	}
	var events, shots int64
	require.Eventually(t, func() bool {
		select {
		case err := <-done:
			done <- err
			return true
		default:
		}
		e, s, err := caps()
		events, shots = e, s
		return err == nil && s == 10<<20
	}, 60*time.Second, 100*time.Millisecond)
	assert.Equal(t, int64(8<<20), events)
	assert.Equal(t, int64(10<<20), shots)
}

// A refusal for want of storage names where corral up keeps JetStream and what is free there,
// and the flags that lower what the streams reserve; other errors pass unchanged.
func TestStorageRefusalNamesTheDataDisk(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), MaxStore: 8 << 20}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	_, refused := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.Error(t, refused)

	data := t.TempDir()
	_, free, err := diskfree.Of(data)
	require.NoError(t, err)
	for _, err := range []error{refused, fmt.Errorf("claim node id local in corral_nodes: %w", refused)} {
		msg := onDataDisk(data, err).Error()
		assert.Contains(t, msg, "err_code=10047")
		assert.Contains(t, msg, "corral up keeps JetStream in "+filepath.Join(data, "jetstream"))
		assert.Contains(t, msg, "on a disk with "+broker.FormatSize(free)[:2], "what is free there")
		assert.Contains(t, msg, "--events-max-bytes and --screenshots-max-bytes")
		assert.ErrorIs(t, onDataDisk(data, err), err)
	}
	other := errors.New("node local: its id is taken")
	assert.Equal(t, other, onDataDisk(data, other))
}
