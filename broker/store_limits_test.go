package broker

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// largestEntries are the largest values Corral writes into each bucket a node writes, as a
// big farm may have them: a device with a full queue, a long reason, many tags and drivers'
// notes; a lease of a long-named holder; an arm rig's calibration and a long halt.
func largestEntries(t *testing.T) map[string][]byte {
	t.Helper()
	long := func(n int) string { return strings.Repeat("x", n) }
	holder := Holder{Principal: long(64), Client: long(64), Session: SessionTag("s")}
	queue := make([]string, MaxQueueShown)
	for i := range queue {
		if i%2 == 0 {
			queue[i] = NewTaskID()
		} else {
			queue[i] = RequestTag(NewTaskID())
		}
	}
	now := time.Now()
	tags := make([]string, 16)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag-%02d-%s", i, long(24))
	}
	device := DeviceEntry{V: WireVersion, Serial: long(40), Platform: "android", Model: long(40), Brand: long(20), Release: "15", SDK: "35",
		Tags: tags, Extra: map[string]string{"touch": long(300), "keys": long(300), "viewport": "1920x1080@2"},
		Node: long(32), State: StateUnhealthy, Reason: long(1024), Epoch: 1 << 40, Holder: holder.String(), Draining: true,
		DrainingSince: now, DrainingBy: long(128), // actors maxDrainBy
		Task:  &RunningTask{ID: NewTaskID(), Tool: "run_agent_task", Holder: &holder, Started: now, Deadline: now, Implicit: true},
		Queue: queue, Queued: 10_000, Updated: now}
	lease := Lease{V: WireVersion, Handle: long(64), Serial: long(40), Node: long(32), Holder: holder, Epoch: 1 << 40,
		AcquiredAt: now, ExpiresAt: now, MaxUntil: now, QueueLen: 10_000, HandleSHA256: HandleHash(long(64))}
	claim := claimRecord{Node: long(32), Boot: long(32), Host: long(253), PID: 1 << 30, Since: now}
	calibration := map[string]any{"version": 1, "rig": long(40), "screen_w": 1440, "screen_h": 3120,
		"quad":             [4][2]float64{{1.0 / 3, 2.0 / 3}, {1.0 / 3, 2.0 / 3}, {1.0 / 3, 2.0 / 3}, {1.0 / 3, 2.0 / 3}},
		"screen_to_gantry": [6]float64{1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0 / 3},
		"residual_p95_mm":  1.0 / 3, "validation_err_mm": 1.0 / 3, "probes": 99, "at": now}
	out := map[string][]byte{}
	for bucket, v := range map[string]any{RegistryBucket: device, LeaseBucket: lease, NodeBucket: claim, CalibrationBucket: calibration} {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		out[bucket] = b
	}
	return out
}

// Each bucket a node writes takes its largest real entry with room to spare (8 times it), and
// 10,000 of them (a big farm: one a device) in all.
func TestBucketLimitsFitTheLargestEntries(t *testing.T) {
	for bucket, entry := range largestEntries(t) {
		l, ok := nodeBucketLimits(bucket)
		require.True(t, ok, bucket)
		t.Logf("%s: largest entry %d bytes, limits %s a value, %s in all", bucket, len(entry), FormatSize(int64(l.MaxValue)), FormatSize(l.MaxBytes))
		assert.LessOrEqual(t, 8*len(entry), int(l.MaxValue), "%s: room for its largest entry", bucket)
		// A stored entry is its value, its key's subject and some 40 bytes of record.
		assert.LessOrEqual(t, int64(10_000*(len(entry)+200)), l.MaxBytes, "%s: room for 10,000 of them", bucket)
	}
	for _, b := range []string{SessionBucket, LeaseGroupBucket} {
		_, ok := nodeBucketLimits(b)
		assert.False(t, ok, "%s: no node writes it", b)
	}
}

// A node's NATS user writes its own keys with the stores' bounds: a value over a bucket's
// MaxValue is refused and says so, a full bucket refuses new keys and says so, and the store
// keeps taking the other node's writes, updates of its keys in place among them.
func TestNodeUserCannotOverfillItsBuckets(t *testing.T) {
	connect := nodeUsersFarm(t)
	ctx := t.Context()
	nA, err := EnsureStores(ctx, connect("node-nA"), StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	nB, err := EnsureStores(ctx, connect("node-nB"), StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	putDevice(t, nB, DeviceEntry{Serial: "d1", Node: "nB", State: StateOnline})
	_, err = nB.Leases.Put(ctx, LeaseKey("nB", "d1"), []byte(`{"v":1}`))
	require.NoError(t, err)

	for bucket, kv := range map[string]jetstream.KeyValue{RegistryBucket: nA.Registry, LeaseBucket: nA.Leases, NodeBucket: nA.Nodes, CalibrationBucket: nA.Calibrations} {
		l, _ := nodeBucketLimits(bucket)
		key := "nA.big"
		if bucket == NodeBucket {
			key = "nA"
		}
		_, err := kv.Put(ctx, key, make([]byte, l.MaxValue+1))
		var api *jetstream.APIError
		if assert.ErrorAs(t, err, &api, bucket) {
			assert.EqualValues(t, 10054, api.ErrorCode, bucket)
		}
		assert.ErrorContains(t, err, bucket+" takes values of at most "+FormatSize(int64(l.MaxValue)), bucket)
	}
	// As the node writes its registry entries (nodes/mirror.go): a publish, refused as well.
	_, err = nA.JS.Publish(ctx, "$KV."+RegistryBucket+".nA.big", make([]byte, 64<<10+1))
	var api *jetstream.APIError
	require.ErrorAs(t, err, &api)
	assert.EqualValues(t, 10054, api.ErrorCode)

	// nA fills the leases' bucket with keys of its own.
	l, _ := nodeBucketLimits(LeaseBucket)
	value := make([]byte, l.MaxValue-1024)
	js := nA.JS
	var futures []jetstream.PubAckFuture
	for i := range int(l.MaxBytes/int64(len(value))) + 8 {
		f, err := js.PublishAsync(fmt.Sprintf("$KV.%s.nA.flood-%d", LeaseBucket, i), value)
		require.NoError(t, err)
		futures = append(futures, f)
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(waitLong):
		t.Fatal("the flood's acknowledgements")
	}
	refused := 0
	for _, f := range futures {
		select {
		case <-f.Ok():
		case <-f.Err():
			refused++
		}
	}
	assert.Positive(t, refused, "the bucket refused some of the flood")
	st, err := js.Stream(ctx, kvStream(LeaseBucket))
	require.NoError(t, err)
	assert.LessOrEqual(t, st.CachedInfo().State.Bytes, uint64(l.MaxBytes), "the flood stays within the bucket's bound")

	_, err = nA.Leases.Put(ctx, LeaseKey("nA", "one-more"), value)
	assert.ErrorContains(t, err, LeaseBucket+" is full: it keeps "+FormatSize(l.MaxBytes))
	// nB's lease is updated in place, and the other stores take writes.
	_, err = nB.Leases.Put(ctx, LeaseKey("nB", "d1"), []byte(`{"v":1,"epoch":2}`))
	assert.NoError(t, err, "an update of nB's lease in the full bucket")
	putDevice(t, nB, DeviceEntry{Serial: "d2", Node: "nB", State: StateOnline})
	_, err = nB.JS.Publish(ctx, fmt.Sprintf(EventDevT, "nB", "d2", StateOnline), []byte(`{}`))
	assert.NoError(t, err, "an event")
	gw, err := EnsureStores(ctx, connect("gateway"), StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	e, err := gw.Leases.Get(ctx, LeaseKey("nB", "d1"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"v":1,"epoch":2}`, string(e.Value()))
}

// A gateway's start bounds the buckets an older Corral made without bounds (MaxMsgSize and
// MaxBytes -1), so that a node's oversize write is refused there too.
func TestGatewayStartBoundsAnOlderCorralsBuckets(t *testing.T) {
	connect := nodeUsersFarm(t)
	ctx := t.Context()
	gwc := connect("gateway")
	_, err := EnsureStores(ctx, gwc, StoreOptions{})
	require.NoError(t, err)
	js, err := jetstream.New(gwc)
	require.NoError(t, err)
	unbound(t, js, kvStream(RegistryBucket), kvStream(LeaseBucket), kvStream(NodeBucket), kvStream(CalibrationBucket), objStream(ScreenshotBucket))
	_, err = EnsureStores(ctx, gwc, StoreOptions{}) // a gateway's start
	require.NoError(t, err)
	assertBounded(t, js)

	nA, err := EnsureStores(ctx, connect("node-nA"), StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	_, err = nA.Calibrations.Put(ctx, "nA.big", make([]byte, 64<<10+1))
	assert.ErrorContains(t, err, "takes values of at most 64KiB")
	_, err = nA.JS.Publish(ctx, "$O."+ScreenshotBucket+".C.big", make([]byte, screenshotMaxMsg+1))
	assert.ErrorContains(t, err, "message size exceeds maximum allowed")
}

// Any node may write the screenshots' store, whose subjects carry no node: a node's message
// larger than a chunk is refused (its NATS user may publish 24 MiB messages), and screenshots
// of many chunks are still saved and read back.
func TestScreenshotStoreTakesChunksOnly(t *testing.T) {
	connect := nodeUsersFarm(t)
	ctx := t.Context()
	nA, err := EnsureStores(ctx, connect("node-nA"), StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	_, err = nA.JS.Publish(ctx, "$O."+ScreenshotBucket+".C.big", make([]byte, screenshotMaxMsg+1))
	var api *jetstream.APIError
	if assert.ErrorAs(t, err, &api) {
		assert.EqualValues(t, 10054, api.ErrorCode)
	}
	shot := make([]byte, 8*screenshotChunk+5)
	for i := range shot {
		shot[i] = byte(i * 7)
	}
	name, err := nA.SaveScreenshot(ctx, "t_big", shot)
	require.NoError(t, err)
	gw, err := EnsureStores(ctx, connect("gateway"), StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	got, err := gw.Screenshot(ctx, name)
	require.NoError(t, err)
	assert.Equal(t, shot, got)
}

// unbound makes streams as an older Corral left them: no bound on a message, nor on the whole.
func unbound(t *testing.T, js jetstream.JetStream, streams ...string) {
	t.Helper()
	for _, name := range streams {
		st, err := js.Stream(t.Context(), name)
		require.NoError(t, err)
		cfg := st.CachedInfo().Config
		cfg.MaxMsgSize, cfg.MaxBytes = -1, -1
		_, err = js.UpdateStream(t.Context(), cfg)
		require.NoError(t, err, name)
	}
}

// assertBounded checks that each bucket a node writes has its bounds.
func assertBounded(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	for _, bucket := range []string{RegistryBucket, LeaseBucket, NodeBucket, CalibrationBucket} {
		l, _ := nodeBucketLimits(bucket)
		st, err := js.Stream(t.Context(), kvStream(bucket))
		require.NoError(t, err)
		cfg := st.CachedInfo().Config
		assert.EqualValues(t, l.MaxValue, cfg.MaxMsgSize, bucket)
		assert.Equal(t, l.MaxBytes, cfg.MaxBytes, bucket)
	}
	st, err := js.Stream(t.Context(), objStream(ScreenshotBucket))
	require.NoError(t, err)
	assert.EqualValues(t, screenshotMaxMsg, st.CachedInfo().Config.MaxMsgSize, ScreenshotBucket)
}
