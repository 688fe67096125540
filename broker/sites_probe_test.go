package broker

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// siteSilentFor is how long a site goes unanswered before a watch without the guard of
// sites_probe.go marks it down: the next probe, a probe interval away, waiting out its timeout
// and the round trip after it.
const siteSilentFor = siteProbeEvery + siteProbeTimeout + probeWait

// A hub gateway whose own NATS server stalls (a hung server, a stalled connection: the TCP
// connection stays up) hears no site either: that silence is its own, and no site is marked
// down however long it lasts. A site that then goes silent while the hub's server answers is
// still seen down within its bound.
func TestSiteWatchCountsNoSilenceOfItsOwn(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	// The site's JetStream as the probe sees it, on a connection of its own: the stall is
	// the hub gateway's.
	site, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(site.Close)
	answering, err := site.Subscribe(siteAPI("tokyo")+".INFO", func(m *nats.Msg) { _ = m.Respond([]byte(`{}`)) })
	require.NoError(t, err)
	require.NoError(t, site.Flush())

	link := startStallLink(t, strings.TrimPrefix(ns.ClientURL(), "nats://"))
	nc, err := nats.Connect("nats://" + link.addr)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	logs := &logtest.Buffer{}
	w, err := WatchSites(t.Context(), nc, nil, NewSiteMetrics(prometheus.NewRegistry()), slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, err)
	w.restoreSite = func(context.Context, string, bool) {} // the links are what is tested
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.watch(ctx, "tokyo"); close(done) }()
	t.Cleanup(func() { link.resume(); cancel(); <-done })
	require.Eventually(t, func() bool { return w.Up("tokyo") }, waitLong, 10*time.Millisecond, "tokyo never up")

	link.stall()
	require.Never(t, func() bool { return !w.Up("tokyo") }, 2*siteSilentFor, 10*time.Millisecond,
		"tokyo marked down while the hub's own server did not answer; the watch's log:\n%s", logs)
	assert.Contains(t, logs.String(), "does not answer this process", "the watch never saw its own server silent")
	link.resume()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "answers this process again") }, waitLong,
		10*time.Millisecond, "the watch never heard its own server again; its log:\n%s", logs)
	require.True(t, w.Up("tokyo"))
	assert.NotContains(t, logs.String(), "site link down")

	// The site goes silent (a cut that leaves the leaf connection open): down within its bound.
	require.NoError(t, answering.Unsubscribe())
	_, err = site.Subscribe(siteAPI("tokyo")+".INFO", func(*nats.Msg) {})
	require.NoError(t, err)
	require.NoError(t, site.Flush())
	cut := time.Now()
	require.Eventually(t, func() bool { return !w.Up("tokyo") }, waitLong, 10*time.Millisecond,
		"tokyo, silent, never marked down; the watch's log:\n%s", logs)
	t.Logf("the silent site was marked down after %s", time.Since(cut).Round(time.Millisecond))
	assert.Less(t, time.Since(cut), siteSilentFor+siteProbeTimeout+siteProbeEvery, "the silent site marked down late")
}

// A probe's answer that reached this process before the round trip after the probe's timeout
// (in time, but not read in time: its goroutines were not run) counts as an answer. No answer
// with the server answering is a silence of the site's; with the server silent too, this
// process's own.
func TestSiteProbeCountsAnAnswerReadLate(t *testing.T) {
	nc := embeddedNATS(t)
	site, err := nats.Connect(nc.ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(site.Close)
	asked := make(chan *nats.Msg, 1)
	_, err = site.ChanSubscribe(siteAPI("tokyo")+".INFO", asked)
	require.NoError(t, err)
	require.NoError(t, site.Flush())
	discard := slog.New(slog.DiscardHandler)
	w := &SiteWatch{nc: nc, log: discard}

	// The site answers only once the probe has timed out, before its round trip.
	w.roundTrip = func(within time.Duration) error {
		m := <-asked
		if err := m.Respond([]byte(`{}`)); err != nil {
			return err
		}
		if err := site.Flush(); err != nil {
			return err
		}
		return nc.FlushTimeout(within)
	}
	assert.NoError(t, w.probe(t.Context(), "tokyo", &ownServer{}, discard), "an answer read after the probe's timeout not counted")

	w.roundTrip = nc.FlushTimeout
	err = w.probe(t.Context(), "tokyo", &ownServer{}, discard)
	<-asked
	assert.ErrorIs(t, err, nats.ErrTimeout)
	assert.False(t, errors.Is(err, errOwnSilence), "a silent site taken for this process's own silence: %v", err)

	w.roundTrip = func(time.Duration) error { return nats.ErrTimeout }
	err = w.probe(t.Context(), "tokyo", &ownServer{}, discard)
	<-asked
	assert.ErrorIs(t, err, errOwnSilence)
}
