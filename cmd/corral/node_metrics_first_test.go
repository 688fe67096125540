package main

import (
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A --metrics address in use stops corral node before it claims its id: it claimed the id,
// registered its simulated devices, and only then found the address taken, leaving the claim's
// and the devices' entries behind (a claim not released, its id refused until it expired).
func TestNodeWithItsMetricsAddressInUseClaimsNothing(t *testing.T) {
	natsURL, taken := natsAndATakenPort(t)
	err := runNode(t.Context(), []string{"--nats-url", natsURL, "--node-id", "m1", "--sim", "1", "--adb", "off",
		"--usbmuxd", "off", "--metrics", taken, "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "address already in use")

	nc, err := broker.Connect(broker.ConnectOptions{URL: natsURL, Name: "test"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	for bucket, key := range map[string]string{broker.NodeBucket: "m1", broker.RegistryBucket: broker.RegistryKey("m1", "sim-m1-01")} {
		kv, err := js.KeyValue(t.Context(), bucket)
		if err == nil {
			_, err = kv.History(t.Context(), key)
			assert.ErrorIs(t, err, jetstream.ErrKeyNotFound, "%s %s was written", bucket, key)
			continue
		}
		assert.ErrorIs(t, err, jetstream.ErrBucketNotFound, bucket)
	}
}
