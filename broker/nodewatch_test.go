package broker

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// readNodeWatch reads the keys a node's watch w delivers until its nil entry (all there is).
func readNodeWatch(ctx context.Context, s *Stores, node string, w NodeWatch) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, waitLong)
	defer cancel()
	kw, err := s.WatchNodeEntries(ctx, node, w)
	if err != nil {
		return nil, err
	}
	defer func() { _ = kw.Stop() }()
	var got []string
	for {
		select {
		case e := <-kw.Updates():
			if e == nil {
				return got, nil
			}
			got = append(got, e.Key())
		case <-ctx.Done():
			return got, ctx.Err()
		}
	}
}

// nextEntries reads n entries of w, failing the test if they do not come in time.
func nextEntries(t *testing.T, w jetstream.KeyWatcher, n int, within time.Duration) []string {
	t.Helper()
	var got []string
	deadline := time.After(within)
	for len(got) < n {
		select {
		case e, ok := <-w.Updates():
			require.True(t, ok, "the watch ended; got %v", got)
			if e != nil {
				got = append(got, e.Key()+"="+string(e.Value()))
			}
		case <-deadline:
			require.FailNow(t, "entries missing", "got %v of %d in %s", got, n, within)
		}
	}
	return got
}

// quiet says that w delivers nothing more for a while: no duplicate, no other node's entry.
func quiet(t *testing.T, w jetstream.KeyWatcher) {
	t.Helper()
	select {
	case e := <-w.Updates():
		if e != nil {
			assert.Fail(t, "an entry more", "%s=%s", e.Key(), e.Value())
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// put writes a registry value as the gateway does, under key.
func put(t *testing.T, s *Stores, key, value string) {
	t.Helper()
	_, err := s.Registry.Put(t.Context(), key, []byte(value))
	require.NoError(t, err)
}

// consumerNames lists the registry's consumers, as the gateway may.
func consumerNames(t *testing.T, gw *Stores) []string {
	t.Helper()
	st, err := gw.JS.Stream(t.Context(), kvStream(RegistryBucket))
	require.NoError(t, err)
	names := st.ConsumerNames(t.Context())
	var out []string
	for n := range names.Name() {
		out = append(out, n)
	}
	require.NoError(t, names.Err())
	return out
}

// A node's watch, on its NATS user with the permissions Corral gives it, delivers the node's
// current entries and then a nil, then their updates, in order and once each, never another
// node's; its stop returns at once (a refused delete of its consumer waited 5 s), logs no
// error, and leaves no consumer behind. The lost-verdict watch delivers updates only.
func TestNodeWatchFollowsItsEntriesAndStopsClean(t *testing.T) {
	f := startNodeUsersNATS(t)
	ctx := t.Context()
	gw, err := EnsureStores(ctx, f.connect("gateway", slog.New(slog.DiscardHandler)), StoreOptions{})
	require.NoError(t, err)
	put(t, gw, "nA.a1", "1")
	put(t, gw, "nB.b1", "1")
	var logged logtest.Buffer
	nA, err := EnsureStores(ctx, f.connect("node-nA", slog.New(slog.NewTextHandler(&logged, nil))), StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)

	start, err := nA.WatchNodeEntries(ctx, "nA", NodeWatchStart)
	require.NoError(t, err)
	lost, err := nA.WatchNodeEntries(ctx, "nA", NodeWatchLost)
	require.NoError(t, err)
	assert.Equal(t, []string{"nA.a1=1"}, nextEntries(t, start, 1, waitLong))
	assert.Nil(t, <-start.Updates(), "the end of the current values")
	assert.ElementsMatch(t, []string{NodeConsumer("nA", NodeWatchStart), NodeConsumer("nA", NodeWatchLost)}, consumerNames(t, gw))

	put(t, gw, "nA.a2", "1")
	put(t, gw, "nB.b1", "2")
	put(t, gw, "nA.a1", "2")
	for _, w := range []jetstream.KeyWatcher{start, lost} {
		assert.Equal(t, []string{"nA.a2=1", "nA.a1=2"}, nextEntries(t, w, 2, waitLong))
	}
	require.NoError(t, gw.Registry.Delete(ctx, "nA.a2")) // skipped, as IgnoreDeletes does
	put(t, gw, "nA.a1", "3")
	for _, w := range []jetstream.KeyWatcher{start, lost} {
		assert.Equal(t, []string{"nA.a1=3"}, nextEntries(t, w, 1, waitLong))
		quiet(t, w)
	}

	for _, w := range []jetstream.KeyWatcher{start, lost} {
		began := time.Now()
		assert.NoError(t, w.Stop())
		assert.Less(t, time.Since(began), time.Second, "the stop's wait")
		for e := range w.Updates() { // closed
			assert.Nil(t, e)
		}
	}
	assert.Empty(t, consumerNames(t, gw), "the consumers the watches left")
	assert.NotContains(t, logged.String(), "level=ERROR")
	assert.NotContains(t, logged.String(), "refused")
}

// A node's watch goes on after NATS restarts (its consumer, in memory, is gone): an entry
// written after the restart arrives within a few seconds of the reconnection (not the 10 s of
// missed heartbeats), and none delivered before comes again. Its consumer deleted under it (by
// an operator, or the server) it goes on from where it was too. It stops clean after.
func TestNodeWatchSurvivesARestartAndItsConsumerDeleted(t *testing.T) {
	f := startNodeUsersNATS(t)
	ctx := t.Context()
	gwConn := f.connect("gateway", slog.New(slog.DiscardHandler))
	gw, err := EnsureStores(ctx, gwConn, StoreOptions{})
	require.NoError(t, err)
	put(t, gw, "nA.a1", "1")
	ncA := f.connect("node-nA", slog.New(slog.DiscardHandler))
	nA, err := EnsureStores(ctx, ncA, StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	w, err := nA.WatchNodeEntries(ctx, "nA", NodeWatchStart)
	require.NoError(t, err)
	assert.Equal(t, []string{"nA.a1=1"}, nextEntries(t, w, 1, waitLong))
	put(t, gw, "nA.a1", "2")
	assert.Equal(t, []string{"nA.a1=2"}, nextEntries(t, w, 1, waitLong))

	f.restart()
	require.Eventually(t, func() bool { return ncA.IsConnected() && gwConn.IsConnected() }, waitLong, 10*time.Millisecond)
	back := time.Now()
	put(t, gw, "nA.a2", "1") // the stream is on disk: JetStream may take a moment to be back
	assert.Equal(t, []string{"nA.a2=1"}, nextEntries(t, w, 1, 5*time.Second), "after the restart")
	t.Logf("the entry came %v after the reconnection", time.Since(back))
	quiet(t, w)

	require.NoError(t, gw.JS.DeleteConsumer(ctx, kvStream(RegistryBucket), NodeConsumer("nA", NodeWatchStart)))
	put(t, gw, "nA.a3", "1")
	put(t, gw, "nA.a1", "3")
	assert.Equal(t, []string{"nA.a3=1", "nA.a1=3"}, nextEntries(t, w, 2, waitLong), "after its consumer's delete")
	quiet(t, w)

	assert.NoError(t, w.Stop())
	assert.Empty(t, consumerNames(t, gw), "the consumer the watch left")
}

// A bad node id or watch is a clear error, before anything reaches NATS.
func TestNodeWatchTakesAValidNodeAndWatch(t *testing.T) {
	s := openStores(t)
	_, err := s.WatchNodeEntries(t.Context(), "n.1", NodeWatchStart)
	assert.ErrorContains(t, err, `node id "n.1"`)
	_, err = s.WatchNodeEntries(t.Context(), "n1", "later")
	assert.ErrorContains(t, err, `node watch "later": use one of`)
}

// A node's watch ends with its connection: Updates is closed, as nats.go's watch's is.
func TestNodeWatchEndsWithItsConnection(t *testing.T) {
	s := openStores(t)
	put(t, s, "n1.d1", "1")
	w, err := s.WatchNodeEntries(t.Context(), "n1", NodeWatchStart)
	require.NoError(t, err)
	assert.Equal(t, []string{"n1.d1=1"}, nextEntries(t, w, 1, waitLong))
	s.JS.Conn().Close()
	ended := make(chan struct{})
	go func() {
		for range w.Updates() {
		}
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(waitLong):
		require.FailNow(t, "the watch goes on after its connection's close")
	}
	assert.NoError(t, w.Stop())
}

// A node's watch ends with the ctx it was made with, as nats.go's does: Updates is closed and
// its consumer deleted.
func TestNodeWatchEndsWithItsContext(t *testing.T) {
	s := openStores(t)
	put(t, s, "n1.d1", "1")
	ctx, cancel := context.WithCancel(t.Context())
	w, err := s.WatchNodeEntries(ctx, "n1", NodeWatchStart)
	require.NoError(t, err)
	assert.Equal(t, []string{"n1.d1=1"}, nextEntries(t, w, 1, waitLong))
	cancel()
	require.Eventually(t, func() bool {
		select {
		case _, ok := <-w.Updates():
			return !ok
		default:
			return false
		}
	}, waitLong, 10*time.Millisecond, "the watch goes on after its ctx's end")
	assert.NoError(t, w.Stop())
	assert.Empty(t, consumerNames(t, s), "the consumer the watch left")
}
