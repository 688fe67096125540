package broker

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/internal/tcplink"
)

// slowSiteDelay is the latency each way of the slow site link below: a probe's answer comes
// 1.2 s after it is sent, late for a 1 s probe and in time for the slow-link rule's 2 s.
const slowSiteDelay = 600 * time.Millisecond

// A slow link is no cut (docs/operations.md: a round trip gets 2 s): a site whose leaf link
// delays every byte 600 ms each way is never called down. Cut silently (the link drops every
// packet and keeps its connection), it is down within the documented 2 to 2.5 s, give or take
// a loaded machine's half second: after one unanswered probe, not two.
func TestSlowSiteLinkIsNoCut(t *testing.T) {
	logs := &logtest.Buffer{}
	hubLeaves := &embedded.LeafListenOptions{Port: -1}
	hub := startSiteTestServer(t, embedded.Options{Name: "hub", LeafListen: hubLeaves})
	var delay atomic.Int64
	var dropping atomic.Bool
	link := tcplink.Forward(t, fmt.Sprintf("127.0.0.1:%d", hubLeaves.Port),
		droppable(&dropping, tcplink.Delay(func() time.Duration { return time.Duration(delay.Load()) })))
	startSiteTestServer(t, embedded.Options{Name: "tokyo", Domain: "tokyo",
		LeafRemote: &embedded.LeafRemoteOptions{URLs: []string{"nats-leaf://" + link}, Local: LeafLocal}})

	nc, err := nats.Connect(hub.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	w, err := WatchSites(t.Context(), nc, nil, NewSiteMetrics(prometheus.NewRegistry()), slog.New(slog.NewTextHandler(logs, nil)))
	require.NoError(t, err)
	w.restoreSite = func(context.Context, string, bool) {} // the link is what is tested
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.watch(ctx, "tokyo"); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	require.Eventually(t, func() bool { return w.Up("tokyo") }, waitLong, 10*time.Millisecond, "tokyo never up; the watch's log:\n%s", logs)

	delay.Store(int64(slowSiteDelay))
	require.Never(t, func() bool { return !w.Up("tokyo") }, 3*siteProbeTimeout, 10*time.Millisecond,
		"tokyo, answering each probe %s after it, was called down; the watch's log:\n%s", 2*slowSiteDelay, logs)
	require.NotContains(t, logs.String(), "site link down", "the slow link was called down and back")
	// The link was slow all along: a probe's answer took both delays.
	start := time.Now()
	require.NoError(t, w.probe(t.Context(), "tokyo", &ownServer{}, slog.New(slog.DiscardHandler)))
	require.GreaterOrEqual(t, time.Since(start), 2*slowSiteDelay, "the link was not slow: the test proved nothing")

	dropping.Store(true)
	cut := time.Now()
	require.Eventually(t, func() bool { return !w.Up("tokyo") }, waitLong, 10*time.Millisecond,
		"tokyo, cut, never called down; the watch's log:\n%s", logs)
	took := time.Since(cut)
	t.Logf("the silent cut was seen after %s", took.Round(time.Millisecond))
	require.Less(t, took, siteSilentFor+siteProbeEvery, "the silent cut was seen late; the watch's log:\n%s", logs)
}

// startSiteTestServer starts a server with JetStream that stops when the test ends.
func startSiteTestServer(t *testing.T, o embedded.Options) *server.Server {
	t.Helper()
	o.Port, o.StoreDir = -1, t.TempDir()
	ns, err := embedded.Start(o, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns
}

// droppable is pipe with what it writes dropped while drop holds: a link that loses every
// packet and keeps its connections, a silent cut.
func droppable(drop *atomic.Bool, pipe func(dst, src net.Conn)) func(dst, src net.Conn) {
	return func(dst, src net.Conn) { pipe(droppingConn{Conn: dst, drop: drop}, src) }
}

type droppingConn struct {
	net.Conn
	drop *atomic.Bool
}

func (c droppingConn) Write(b []byte) (int, error) {
	if c.drop.Load() {
		return len(b), nil
	}
	return c.Conn.Write(b)
}
