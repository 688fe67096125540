package broker

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// A restore that hangs (the link went silent under its requests) must not keep the watch from
// probing: the cut is seen as soon as the probes fail, and the restore is stopped. Before, the
// watch probed nothing until the restore's requests timed out (30 s each).
func TestSiteCutSeenDuringARestore(t *testing.T) {
	nc := embeddedNATS(t)
	// The site's JetStream as the probe sees it: an answer to its account INFO request.
	site, err := nc.Subscribe(siteAPI("tokyo")+".INFO", func(m *nats.Msg) { _ = m.Respond([]byte(`{}`)) })
	require.NoError(t, err)
	require.NoError(t, nc.Flush())

	w, err := WatchSites(t.Context(), nc, nil, NewSiteMetrics(prometheus.NewRegistry()), nil)
	require.NoError(t, err)
	var running atomic.Int64
	started := make(chan struct{}, 4)
	w.restoreSite = func(ctx context.Context, _ string, _ bool) {
		running.Add(1)
		defer running.Add(-1)
		started <- struct{}{}
		<-ctx.Done() // hangs as a restore over a silent link does, until stopped
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.watch(ctx, "tokyo"); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	select {
	case <-started:
	case <-time.After(waitLong):
		t.Fatal("the link came up but no restore started")
	}
	require.True(t, w.Up("tokyo"))
	require.NoError(t, site.Unsubscribe()) // the link drops
	require.Eventually(t, func() bool { return !w.Up("tokyo") }, waitLong, 10*time.Millisecond,
		"the link dropped during a restore, yet the site is not marked down: the watch was stuck in the restore")
	require.Eventually(t, func() bool { return running.Load() == 0 }, waitLong, 10*time.Millisecond,
		"the site is down, yet its restore goes on")
}

// A restore stopped because its link dropped or its gateway stops (its context cancelled)
// warns of nothing: it used to warn 'context canceled' at every cut and shutdown. One that
// fails for another reason (here: no site answers for the domain) still warns.
func TestStoppedRestoreWarnsOfNothing(t *testing.T) {
	nc := embeddedNATS(t)
	hub, err := jetstream.New(nc)
	require.NoError(t, err)
	logs := &logtest.Buffer{}
	w := &SiteWatch{nc: nc, hub: hub, log: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}

	stopped, stop := context.WithCancel(t.Context())
	stop()
	w.restore(stopped, "tokyo", true)
	assert.NotContains(t, logs.String(), "level=WARN", "a stopped restore warned")
	assert.Contains(t, logs.String(), "the watch ended", "a stopped restore said nothing at DEBUG")

	w.restore(t.Context(), "tokyo", true)
	assert.Contains(t, logs.Line("level=WARN"), "not all restored at the hub", "a failed restore did not warn; its log:\n%s", logs)
}
