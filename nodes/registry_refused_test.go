package nodes

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
)

// A registry entry the bucket refuses for its bounds is told as such: the log names the bucket
// and its bound (not NATS's bare "message size exceeds maximum allowed"), and the outage's
// hint, its reminder and the node's readiness say what to do about it, not to check the disk.
func TestRefusedRegistryWriteSaysWhy(t *testing.T) {
	ctx, stores, _ := mirrorStores(t)
	refused := func(e broker.DeviceEntry) (logs *logtest.Buffer, m *natsMirror) {
		t.Helper()
		logs = &logtest.Buffer{}
		m = newNATSMirror(stores, "n1", slog.New(slog.NewTextHandler(logs, nil)))
		m.health.downAfter, m.health.remindGap = time.Nanosecond, time.Nanosecond
		m.Device(e)
		for range 3 { // failed, told as an outage, reminded
			_, failed := m.flush(ctx, true)
			require.True(t, failed, "the entry was taken")
		}
		return logs, m
	}
	entry := func(serial string, extra map[string]string) broker.DeviceEntry {
		return broker.DeviceEntry{V: broker.WireVersion, Serial: serial, Platform: "android", Node: "n1", State: broker.StateOnline, Extra: extra}
	}

	// Too large: an entry over 64KiB (whose driver's extras were not cut) is written cut
	// (entry_refused_test.go), and the WARN that says so names the bucket and its bound.
	logs := &logtest.Buffer{}
	m := newNATSMirror(stores, "n1", slog.New(slog.NewTextHandler(logs, nil)))
	m.Device(entry("p1", map[string]string{"note": strings.Repeat("x", 65<<10)}))
	for range 2 { // refused, then taken cut
		_, failed := m.flush(ctx, true)
		require.False(t, failed)
	}
	assert.Contains(t, logs.Line("larger than its bucket takes"), broker.RegistryBucket+" takes values of at most 64KiB")
	assert.NoError(t, m.health.ready())

	// Full: the bucket, at its bytes, refuses a new key.
	st, err := stores.JS.Stream(ctx, "KV_"+broker.RegistryBucket)
	require.NoError(t, err)
	cfg := st.CachedInfo().Config
	cfg.MaxBytes = 8 << 10
	_, err = stores.JS.UpdateStream(ctx, cfg)
	require.NoError(t, err)
	for i := 0; ; i++ {
		if _, err = stores.Registry.Put(ctx, broker.RegistryKey("n2", fmt.Sprint("p", i)), make([]byte, 1<<10)); err != nil {
			break
		}
		require.Less(t, i, 100, "the bucket of 8KiB is never full")
	}
	var outage string
	logs, m = refused(entry("p2", map[string]string{"note": strings.Repeat("x", 2<<10)})) // more than the room left
	assert.Contains(t, logs.Line("NATS writes failed; retrying"), broker.RegistryBucket+" is full", "the first failure")
	outage = logs.Line("the NATS stores take no writes")
	assert.Contains(t, outage, "A bucket is full", "the outage's hint")
	assert.NotContains(t, outage, "df", "the outage's hint")
	assert.ErrorContains(t, m.health.ready(), "a bucket full")

	// Anything else is most likely the disk, as before.
	assert.Contains(t, troubleOf(jetstream.ErrNoStreamResponse).hint(), "Check the data disk of the NATS server (df)")
}
