package broker

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// The catch-up's patience is bounded: a source re-add can go on for 30 s while a site stays
// quiet, and a silent cut should not wait that out. Once the patience is over, with a restore
// still at work, one unanswered probe is a cut again.
func TestSiteWatchPatienceEndsAfterALinkUp(t *testing.T) {
	logs := &logtest.Buffer{}
	var dropping atomic.Bool
	nc := siteOverLink(t, nil, &dropping)
	probes := &probeLog{}
	w, err := WatchSites(t.Context(), nc, nil, NewSiteMetrics(prometheus.NewRegistry()), slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, err)
	// A restore that goes on until the link is seen down (or the watch ends).
	w.restoreSite = func(ctx context.Context, _ string, _ bool) { <-ctx.Done() }
	w.probed, w.patience = probes.hear, time.Second
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.watch(ctx, "tokyo"); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	require.Eventually(t, func() bool { p, ok := probes.last(); return ok && p.Up && p.Healing }, waitLong, 10*time.Millisecond,
		"tokyo's link-up not catching up; the watch's log:\n%s", logs)
	require.Eventually(t, func() bool { p, ok := probes.last(); return ok && p.Up && !p.Healing }, waitLong, 10*time.Millisecond,
		"tokyo's watch still patient %s after its link-up, its restore still at work; the watch's log:\n%s", w.patience, logs)

	dropping.Store(true)
	cutAt := probes.len()
	var unanswered []siteProbe
	var seen siteProbe
	require.Eventually(t, func() bool { var down bool; unanswered, seen, down = probes.untilDown(cutAt); return down }, waitLong,
		10*time.Millisecond, "tokyo, cut, never called down; the watch's log:\n%s", logs)
	require.False(t, w.Up("tokyo"))
	t.Logf("the silent cut after the patience was seen at unanswered probe %d", len(unanswered))
	require.Len(t, unanswered, 1, "tokyo, cut once the patience was over, was not called down at its first unanswered probe: %v; the watch's log:\n%s",
		unanswered, logs)
	require.GreaterOrEqual(t, seen.Took, slowLinkRule, "tokyo called down before its probe's %s had passed", slowLinkRule)
}
