package broker

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// smallJetStream starts an embedded NATS whose JetStream may keep maxStore bytes on disk, as
// nats-server allows on a small disk (75% of its free space), and connects to it.
func smallJetStream(t *testing.T, maxStore int64) *nats.Conn {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), MaxStore: maxStore}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return nc
}

// A server whose storage cannot reserve the streams' caps is said to be short of storage,
// with what each stream reserves and the flags that lower it: it was asked whether
// JetStream was enabled. Caps that fit are taken.
func TestShortStorageSaysWhatTheStreamsReserve(t *testing.T) {
	nc := smallJetStream(t, 20<<20+nodeBucketsBytes())
	_, err := EnsureStores(t.Context(), nc, StoreOptions{})
	require.Error(t, err)
	assert.True(t, StorageShort(err), "%v", err)
	msg := err.Error()
	assert.Contains(t, msg, "err_code=10047")
	assert.Contains(t, msg, "JetStream storage is short")
	assert.Contains(t, msg, "1GiB for CORRAL_EVENTS (--events-max-bytes)")
	assert.Contains(t, msg, "1GiB for the screenshots (--screenshots-max-bytes)")
	assert.Contains(t, msg, "128MiB for the sessions (--sessions-max-bytes)")
	assert.Contains(t, msg, "120MiB for the buckets the nodes write (fixed)")
	assert.NotContains(t, msg, "is JetStream enabled")

	_, err = EnsureStores(t.Context(), nc, StoreOptions{EventsMaxBytes: 4 << 20, ScreenshotsMaxBytes: 4 << 20, SessionsMaxBytes: 1 << 20})
	require.NoError(t, err, "caps that fit the storage")
}

// A write refused because the storage is full (10023, no stream cap involved) is short of
// storage too: callers must not blame the NATS user's permissions for it.
func TestFullStorageIsStorageShort(t *testing.T) {
	nc := smallJetStream(t, 12<<20)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	// The claims' bucket as an older Corral made it, and a store that fills the storage: neither
	// has a cap, which JetStream reserves when a stream is made (Corral's buckets have theirs).
	_, err = js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: NodeBucket})
	require.NoError(t, err)
	uncapped, err := js.CreateKeyValue(t.Context(), jetstream.KeyValueConfig{Bucket: "uncapped"})
	require.NoError(t, err)
	value := bytes.Repeat([]byte("x"), 1<<20)
	for i := range 16 {
		if _, err = uncapped.Put(t.Context(), fmt.Sprintf("rig-%d", i), value); err != nil {
			break
		}
	}
	require.Error(t, err, "the storage fills")
	assert.True(t, StorageShort(err), "%v", err)
	assert.False(t, StorageShort(fmt.Errorf("claim: %w", nats.ErrPermissionViolation)))

	// A node id's claim on the full storage says so, not that the user may not write the key.
	_, err = ClaimNode(t.Context(), nc, "n1", "boot-a", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "JetStream storage is full: free space on its data disk")
	assert.NotContains(t, err.Error(), "may this NATS user write")
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{1 << 30: "1GiB", 200 << 20: "200MiB", 512 << 10: "512KiB", 1000: "1000B", 13<<20 + 1<<19: "13.5MiB"} {
		assert.Equal(t, want, FormatSize(n))
	}
}
