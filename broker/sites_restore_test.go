package broker

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
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
	case <-time.After(10 * time.Second):
		t.Fatal("the link came up but no restore started")
	}
	require.True(t, w.Up("tokyo"))
	require.NoError(t, site.Unsubscribe()) // the link drops
	require.Eventually(t, func() bool { return !w.Up("tokyo") }, 15*time.Second, 10*time.Millisecond,
		"the link dropped during a restore, yet the site is not marked down: the watch was stuck in the restore")
	require.Eventually(t, func() bool { return running.Load() == 0 }, 5*time.Second, 10*time.Millisecond,
		"the site is down, yet its restore goes on")
}
