package broker

import (
	"log/slog"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// A watch's probes share one inbox: the server (and through leaf connections every site) hears
// of one subscription for all of them, not of one more and its removal at each probe. Each
// probe still takes its own answer: one that came after its probe ended is not the next's.
func TestSiteProbesSubscribeOnce(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	site, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(site.Close)
	_, err = site.Subscribe(siteAPI("tokyo")+".INFO", func(m *nats.Msg) { _ = m.Respond([]byte(`{}`)) })
	require.NoError(t, err)
	require.NoError(t, site.Flush())
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	discard := slog.New(slog.DiscardHandler)
	w := &SiteWatch{nc: nc, log: discard, roundTrip: nc.FlushTimeout}

	inserts := func() uint64 {
		t.Helper()
		require.NoError(t, nc.Flush())
		sz, err := ns.Subsz(&server.SubszOptions{})
		require.NoError(t, err)
		return sz.NumInserts
	}
	require.NoError(t, w.probe(t.Context(), "tokyo", &ownServer{}, discard), "the first probe")
	before, subs := inserts(), nc.NumSubscriptions()
	const probes = 20
	for range probes {
		require.NoError(t, w.probe(t.Context(), "tokyo", &ownServer{}, discard))
	}
	assert.Equal(t, before, inserts(), "subscriptions the server was told of over %d probes", probes)
	assert.Equal(t, subs, nc.NumSubscriptions(), "the connection's subscriptions after %d probes", probes)

	// tokyo answers twice; osaka, silent, is not answered by tokyo's second answer.
	_, err = site.Subscribe(siteAPI("osaka")+".INFO", func(*nats.Msg) {})
	require.NoError(t, err)
	_, err = site.Subscribe(siteAPI("tokyo")+".INFO", func(m *nats.Msg) { _ = m.Respond([]byte(`{}`)) })
	require.NoError(t, err)
	require.NoError(t, site.Flush())
	require.NoError(t, w.probe(t.Context(), "tokyo", &ownServer{}, discard))
	assert.ErrorIs(t, w.probe(t.Context(), "osaka", &ownServer{}, discard), nats.ErrTimeout, "a silent site taken for up")
}
