package broker

import (
	"context"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node's NATS user may delete a consumer of the registry by name (nats.go deletes the watch
// consumer it made when the watch stops, and consumer names cannot be narrowed to a node's own
// in NATS permissions: docs/operations.md, NATS roles). It cannot learn another's name: it may
// not list the registry's consumers, read their info, nor hear JetStream's advisories, and the
// stream's info names none. Its own watch works.
func TestNodeUserCannotLearnOthersConsumerNames(t *testing.T) {
	connect := nodeUsersFarm(t)
	ctx := t.Context()
	gw, err := EnsureStores(ctx, connect("gateway"), StoreOptions{})
	require.NoError(t, err)
	putDevice(t, gw, DeviceEntry{Serial: "a1", Node: "nA", State: StateOnline})
	gwWatch, err := gw.Registry.WatchAll(ctx) // a gateway's consumer
	require.NoError(t, err)
	t.Cleanup(func() { _ = gwWatch.Stop() })

	nc := connect("node-nA")
	nA, err := EnsureStores(ctx, nc, StoreOptions{CreateOnly: true})
	require.NoError(t, err)
	refused := func(what string, try func(ctx context.Context) error) {
		t.Helper()
		rctx, stop := watchRefusalOf(ctx, nc, func(s string) bool { return strings.HasPrefix(s, "$JS.") })
		defer stop()
		rctx, cancel := context.WithTimeout(rctx, waitLong)
		defer cancel()
		err := try(rctx)
		var r *RefusedError
		if assert.ErrorAs(t, context.Cause(rctx), &r, "%s: %v", what, err) {
			assert.Contains(t, r.Subject, "$JS.", what)
		}
	}
	st, err := nA.JS.Stream(ctx, kvStream(RegistryBucket))
	require.NoError(t, err, "a node reads the registry's stream info")
	assert.Positive(t, st.CachedInfo().State.Consumers, "the gateway's watch is there")
	refused("consumer names", func(ctx context.Context) error {
		names := st.ConsumerNames(ctx)
		for range names.Name() {
		}
		return names.Err()
	})
	refused("consumer list", func(ctx context.Context) error {
		list := st.ListConsumers(ctx)
		for range list.Info() {
		}
		return list.Err()
	})
	refused("consumer info", func(ctx context.Context) error {
		_, err := st.Consumer(ctx, "anyname")
		return err
	})
	rctx, stop := watchRefusalOf(ctx, nc, func(s string) bool { return strings.HasPrefix(s, "$JS.EVENT") })
	defer stop()
	rctx, cancel := context.WithTimeout(rctx, waitLong)
	defer cancel()
	sub, err := nc.SubscribeSync("$JS.EVENT.ADVISORY.>")
	require.NoError(t, err)
	defer func() { _ = sub.Unsubscribe() }()
	require.NoError(t, nc.Flush())
	<-rctx.Done()
	var r *RefusedError
	assert.ErrorAs(t, context.Cause(rctx), &r, "JetStream's advisories (consumer names)")

	// Its own watch.
	w, err := nA.Registry.Watch(ctx, "nA.*", jetstream.IgnoreDeletes())
	require.NoError(t, err)
	e := <-w.Updates()
	require.NotNil(t, e)
	assert.Equal(t, RegistryKey("nA", "a1"), e.Key())
	assert.NoError(t, w.Stop(), "the node deletes its own watch's consumer")
}
