package broker

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// CutOff goes by the watch's patience (sites_patience.go): while a link-up catches up, a live
// site's answer can wait behind the backlog past 2 s, and the watch holds the link up after one
// probe left unanswered; CutOff called the site cut off at that one probe all the same. Silent
// for CutOff's first probe and answering its second, tokyo is not cut off; silent for good, it
// is, at CutOff's second unanswered probe.
func TestCutOffIsPatientWhileALinkUpCatchesUp(t *testing.T) {
	nc := embeddedNATS(t)
	site, err := nats.Connect(nc.ConnectedUrl())
	require.NoError(t, err)
	t.Cleanup(site.Close)
	// tokyo's JetStream as the probes see it: it answers unless silent.
	var silent, answerAfterATimeout atomic.Bool
	_, err = site.Subscribe(siteAPI("tokyo")+".INFO", func(m *nats.Msg) {
		if !silent.Load() {
			_ = m.Respond([]byte(`{}`))
		}
	})
	require.NoError(t, err)
	require.NoError(t, site.Flush())

	logs := &logtest.Buffer{}
	w, err := WatchSites(t.Context(), nc, nil, NewSiteMetrics(prometheus.NewRegistry()), slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, err)
	probes := &probeLog{}
	// A restore that goes on until the link is seen down, and a patience that outlasts the test.
	w.restoreSite = func(ctx context.Context, _ string, _ bool) { <-ctx.Done() }
	w.probed, w.patience = probes.hear, time.Hour
	// A probe's round trip comes once it has waited out its timeout: then tokyo answers again,
	// if asked to.
	w.roundTrip = func(within time.Duration) error {
		if answerAfterATimeout.Load() {
			silent.Store(false)
		}
		return nc.FlushTimeout(within)
	}
	w.learnNodes("tokyo", []string{"n1.p1"})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.watch(ctx, "tokyo"); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	catchingUp := func() bool { p, ok := probes.last(); return ok && p.Up && p.Healing }
	require.Eventually(t, catchingUp, waitLong, 10*time.Millisecond, "tokyo's link-up not catching up; the watch's log:\n%s", logs)

	// CutOff's first probe goes unanswered (tokyo is silent when it is asked); tokyo answers
	// again once a probe has waited out its timeout, in time for CutOff's second.
	answerAfterATimeout.Store(true)
	silent.Store(true)
	s, cut := w.CutOff(t.Context(), "n1")
	require.False(t, cut, "tokyo, catching up, called cut off (%q) at one unanswered probe; the watch's log:\n%s", s, logs)
	require.False(t, silent.Load(), "no probe waited out its timeout: the test proved nothing")
	require.True(t, w.Up("tokyo"), "the watch called tokyo down at one unanswered probe while catching up; its log:\n%s", logs)

	// Silent for good: cut off, at CutOff's second unanswered probe.
	require.Eventually(t, catchingUp, waitLong, 10*time.Millisecond, "tokyo not catching up any more; the watch's log:\n%s", logs)
	answerAfterATimeout.Store(false)
	silent.Store(true)
	asked := time.Now()
	s, cut = w.CutOff(t.Context(), "n1")
	took := time.Since(asked)
	t.Logf("tokyo, silent while catching up, was called cut off after %s", took.Round(time.Millisecond))
	require.True(t, cut, "tokyo, silent while catching up, not called cut off; the watch's log:\n%s", logs)
	require.Equal(t, "tokyo", s)
	require.GreaterOrEqual(t, took, siteProbeFailures*siteProbeTimeout, "tokyo called cut off before %d probes went unanswered", siteProbeFailures)
}
