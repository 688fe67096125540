package broker

import (
	"context"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node's NATS user cannot learn the names of the registry's consumers: it may not list them,
// read their info, nor hear JetStream's advisories, and the stream's info names none. (Nor may
// it delete any but its own watches': TestNodeUserCannotDeleteOthersConsumers.)
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
	nA, err := EnsureStores(ctx, nc, StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	refused := refusedOn(t, ctx, nc, "$JS.")
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

}

// A node's NATS user deletes its own watches' consumers (NodeConsumer) and no other: not a
// gateway's watch, nor another node's, whose names it would have guessed or been told; nor may
// it make a consumer of another node's name, or of its own on another's entries. The others'
// watches go on.
func TestNodeUserCannotDeleteOthersConsumers(t *testing.T) {
	connect := nodeUsersFarm(t)
	ctx := t.Context()
	gw, err := EnsureStores(ctx, connect("gateway"), StoreOptions{})
	require.NoError(t, err)
	put(t, gw, "nA.a1", "1")
	put(t, gw, "nB.b1", "1")
	gwWatch, err := gw.Registry.WatchAll(ctx) // a gateway's consumer, named by nats.go
	require.NoError(t, err)
	t.Cleanup(func() { _ = gwWatch.Stop() })
	gwConsumer := consumerNames(t, gw)
	require.Len(t, gwConsumer, 1)
	nB, err := EnsureStores(ctx, connect("node-nB"), StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	nBWatch, err := nB.WatchNodeEntries(ctx, "nB", NodeWatchLost)
	require.NoError(t, err)
	t.Cleanup(func() { _ = nBWatch.Stop() })
	before := consumerNames(t, gw)

	nc := connect("node-nA")
	nA, err := EnsureStores(ctx, nc, StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	refused := refusedOn(t, ctx, nc, "$JS.API.CONSUMER.")
	stream := kvStream(RegistryBucket)
	for _, name := range []string{gwConsumer[0], NodeConsumer("nB", NodeWatchLost)} {
		refused("delete "+name, func(ctx context.Context) error { return nA.JS.DeleteConsumer(ctx, stream, name) })
	}
	refused("a consumer of nB's name", func(ctx context.Context) error {
		_, err := nA.JS.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{Name: NodeConsumer("nB", NodeWatchStart),
			FilterSubject: "$KV." + RegistryBucket + ".nA.*", AckPolicy: jetstream.AckNonePolicy})
		return err
	})
	refused("its own consumer on nB's entries", func(ctx context.Context) error {
		_, err := nA.JS.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{Name: NodeConsumer("nA", NodeWatchStart),
			FilterSubject: "$KV." + RegistryBucket + ".nB.*", AckPolicy: jetstream.AckNonePolicy})
		return err
	})
	assert.ElementsMatch(t, before, consumerNames(t, gw), "the registry's consumers")

	put(t, gw, "nB.b1", "2")
	assert.Equal(t, []string{"nB.b1=2"}, nextEntries(t, nBWatch, 1, waitLong), "nB's watch")
	assert.Contains(t, nextEntries(t, gwWatch, 3, waitLong), "nB.b1=2", "the gateway's watch")
	mine, err := readNodeWatch(ctx, nA, "nA", NodeWatchStart)
	require.NoError(t, err)
	assert.Equal(t, []string{"nA.a1"}, mine, "nA's own watch")
}

// refusedOn is a check that try, run on nc, is refused by the server on a subject starting
// with prefix (the refusal, not try's own error, which may only be a timeout).
func refusedOn(t *testing.T, ctx context.Context, nc *nats.Conn, prefix string) func(what string, try func(ctx context.Context) error) {
	return func(what string, try func(ctx context.Context) error) {
		t.Helper()
		rctx, stop := watchRefusalOf(ctx, nc, func(s string) bool { return strings.HasPrefix(s, prefix) })
		defer stop()
		rctx, cancel := context.WithTimeout(rctx, waitLong)
		defer cancel()
		err := try(rctx)
		var r *RefusedError
		if assert.ErrorAs(t, context.Cause(rctx), &r, "%s: %v", what, err) {
			assert.Contains(t, r.Subject, prefix, what)
		}
	}
}
