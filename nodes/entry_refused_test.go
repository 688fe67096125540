package nodes

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
)

// A registry entry the bucket refuses as too large (here a bucket bounded far below Corral's
// 64KiB; in the field, a bug) is not retried for ever: it is written again cut to the least,
// and the device's later entries too, said once at WARN with the bucket's bound. One refused
// even so is given up, not retried, said once at ERROR, and the node's readiness names the
// device until an entry of it is taken.
func TestRegistryEntryTooLargeIsCutThenGivenUp(t *testing.T) {
	ctx, stores, _ := mirrorStores(t)
	var logs logtest.Buffer
	m := newNATSMirror(stores, "n1", slog.New(slog.NewTextHandler(&logs, nil)))
	bound := func(maxValue int32) {
		t.Helper()
		st, err := stores.JS.Stream(ctx, "KV_"+broker.RegistryBucket)
		require.NoError(t, err)
		cfg := st.CachedInfo().Config
		cfg.MaxMsgSize = maxValue
		_, err = stores.JS.UpdateStream(ctx, cfg)
		require.NoError(t, err)
	}
	written := func() (e broker.DeviceEntry, size int) {
		t.Helper()
		kve, err := stores.Registry.Get(ctx, broker.RegistryKey("n1", "p1"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(kve.Value(), &e))
		return e, len(kve.Value())
	}
	// flushed writes what is queued, the registry's turn every time, and says whether entries wait.
	flushed := func() (pending bool) {
		t.Helper()
		pending, failed := m.flush(ctx, true)
		require.False(t, failed, "a refused entry counted as a failure to retry")
		return pending
	}
	extras := map[string]string{}
	for i := range 8 { // 8KiB, well within what the node lets a driver give (entry_bounds.go)
		extras[fmt.Sprint("k", i)] = strings.Repeat("x", 1000)
	}
	entry := func(state string) broker.DeviceEntry {
		return broker.DeviceEntry{V: broker.WireVersion, Serial: "p1", Platform: "android", Model: "Pixel", Node: "n1", State: state,
			Tags: []string{"lab", "eu"}, Extra: extras, Queue: []string{"t1", "t2"}, Queued: 2, Updated: time.Now()}
	}

	bound(2 << 10)
	m.Device(entry(broker.StateOnline))
	require.True(t, flushed(), "the refused entry is not written again")
	require.False(t, flushed(), "the cut entry was not taken")
	got, size := written()
	assert.LessOrEqual(t, size, 2<<10)
	assert.Equal(t, broker.StateOnline, got.State)
	assert.Equal(t, []string{"lab", "eu"}, got.Tags)
	assert.Nil(t, got.Extra)
	assert.Equal(t, 2, got.Queued)
	warn := logs.Line("larger than its bucket takes: its entries are written cut")
	assert.Contains(t, warn, "level=WARN")
	assert.Contains(t, warn, "serial=p1")
	assert.Contains(t, warn, "message size exceeds maximum allowed")
	assert.NoError(t, m.health.ready())

	m.Device(entry(broker.StateUnhealthy)) // the device's next entry goes out cut at once
	require.False(t, flushed())
	got, _ = written()
	assert.Equal(t, broker.StateUnhealthy, got.State)
	assert.Equal(t, 1, strings.Count(logs.String(), "written cut to the least"), "said more than once")

	bound(128) // not even the least entry fits
	m.Device(entry(broker.StateOnline))
	require.False(t, flushed(), "the entry given up is written again")
	require.False(t, flushed())
	got, _ = written()
	assert.Equal(t, broker.StateUnhealthy, got.State, "as last written")
	assert.Contains(t, logs.Line("even cut to the least: not written"), "level=ERROR")
	assert.ErrorContains(t, m.health.ready(), "the registry entry of device p1 (of 1) is larger than corral_devices takes, even cut")
	m.Device(entry(broker.StateOnline)) // its next entry is tried once, and told no more
	require.False(t, flushed())
	assert.Equal(t, 1, strings.Count(logs.String(), "even cut to the least"), "said more than once")

	bound(64 << 10)
	m.Device(entry(broker.StateOnline))
	require.False(t, flushed())
	got, _ = written()
	assert.Equal(t, broker.StateOnline, got.State)
	assert.NoError(t, m.health.ready(), "the entry was taken")
	assert.Contains(t, logs.String(), "taken again")
}

// The least entry keeps what the farm needs of a device, and every driver's text is cut short.
func TestLeastEntryKeepsTheNodesFields(t *testing.T) {
	long := strings.Repeat("é", 10<<10)
	e := broker.DeviceEntry{V: broker.WireVersion, Serial: "p1", Platform: long, Model: long, Brand: long, Release: long, SDK: long,
		Tags: make([]string, 100), Extra: map[string]string{"k": long}, Node: "n1", State: broker.StateUnhealthy, Reason: long,
		Epoch: 7, Holder: "alice", Task: &broker.RunningTask{ID: "t1", Tool: "tap"}, Queue: []string{"t2"}, Queued: 1}
	for i := range e.Tags {
		e.Tags[i] = long
	}
	least := leastEntry(e)
	data, err := json.Marshal(least)
	require.NoError(t, err)
	assert.Less(t, len(data), 2<<10, "%s", data)
	assert.Len(t, least.Tags, leastTags)
	assert.Nil(t, least.Extra)
	assert.Nil(t, least.Queue)
	assert.Equal(t, 1, least.Queued)
	assert.True(t, strings.HasSuffix(least.Reason, ellipsis))
	least.Platform, least.Model, least.Brand, least.Release, least.SDK, least.Tags, least.Reason = e.Platform, e.Model, e.Brand, e.Release, e.SDK, e.Tags, e.Reason
	least.Extra, least.Queue = e.Extra, e.Queue
	assert.Equal(t, e, least, "a field of the node's changed")
	assert.Len(t, e.Tags, 100, "the entry given was changed")
}
