package broker

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// While a link-up's catch-up runs (the restores, the sources' re-adds), the site's answers
// can wait behind its backlog past 2 s though it is live (TestLeafSitesCutAndHeal under load):
// one probe unanswered is then no cut, two in a row are. Cut silently while a restore is still
// at work, tokyo is called down at its second unanswered probe, not at its first.
func TestSiteWatchIsPatientWhileALinkUpCatchesUp(t *testing.T) {
	logs := &logtest.Buffer{}
	var dropping atomic.Bool
	nc := siteOverLink(t, nil, &dropping)
	probes := &probeLog{}
	// A restore that goes on until the link is seen down (or the watch ends).
	w := watchTokyo(t, nc, logs, probes, func(ctx context.Context, _ string, _ bool) { <-ctx.Done() })
	require.Eventually(t, func() bool { p, ok := probes.last(); return ok && p.Up && p.Healing }, waitLong, 10*time.Millisecond,
		"tokyo's link-up not catching up")

	dropping.Store(true)
	cutAt := probes.len()
	var unanswered []siteProbe
	var seen siteProbe
	require.Eventually(t, func() bool { var down bool; unanswered, seen, down = probes.untilDown(cutAt); return down }, waitLong,
		10*time.Millisecond, "tokyo, cut, never called down; the watch's log:\n%s", logs)
	require.False(t, w.Up("tokyo"))
	t.Logf("the silent cut during the catch-up was seen at unanswered probe %d", len(unanswered))
	require.Len(t, unanswered, siteProbeFailures, "tokyo, cut while catching up, was not called down at its unanswered probe %d: %v; the watch's log:\n%s",
		siteProbeFailures, unanswered, logs)
	require.True(t, unanswered[0].Healing && unanswered[0].Up, "the first unanswered probe was not one of the catch-up's: %v", unanswered)
	require.GreaterOrEqual(t, seen.Took, slowLinkRule, "tokyo called down before its probe's %s had passed", slowLinkRule)
}
