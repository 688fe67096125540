package broker

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// An older Corral's corral_calibrations that already holds more than the bound (no bound was
// set then) is kept at what it holds and a quarter of the bound more, and the start says so:
// bounded at 32MiB it refused every update that grew a value, a node's epoch floor at its
// restart among them, and corral up did not start.
func TestGatewayStartKeepsRoomInAnOverfullOlderBucket(t *testing.T) {
	nc := embeddedNATS(t)
	ctx := t.Context()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	old, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: CalibrationBucket, Storage: jetstream.FileStorage})
	require.NoError(t, err)
	limit, _ := nodeBucketLimits(CalibrationBucket)
	value := bytes.Repeat([]byte("c"), 900<<10)
	for i := 0; int64(i*len(value)) <= limit.MaxBytes+(1<<20); i++ {
		_, err := old.Put(ctx, fmt.Sprintf("n1.rig-%d", i), value)
		require.NoError(t, err)
	}

	var log logtest.Buffer
	stores, err := EnsureStores(ctx, nc, StoreOptions{Log: slog.New(slog.NewTextHandler(&log, nil))})
	require.NoError(t, err)
	st, err := js.Stream(ctx, kvStream(CalibrationBucket))
	require.NoError(t, err)
	held := int64(st.CachedInfo().State.Bytes)
	assert.Equal(t, held+limit.MaxBytes/4, st.CachedInfo().Config.MaxBytes, "the bound of a bucket holding %d", held)
	assert.Contains(t, log.Line("a bucket holds more than its bound"), "bucket=corral_calibrations")

	_, err = stores.Calibrations.Put(ctx, "n1.epochs", []byte("00000000000001000000"))
	require.NoError(t, err, "a new small key in the bucket kept larger")

	// A bucket under its bound is bounded at it, however often gateways start.
	_, err = EnsureStores(ctx, nc, StoreOptions{})
	require.NoError(t, err)
	st, err = js.Stream(ctx, kvStream(LeaseBucket))
	require.NoError(t, err)
	leases, _ := nodeBucketLimits(LeaseBucket)
	assert.Equal(t, leases.MaxBytes, st.CachedInfo().Config.MaxBytes)
}
