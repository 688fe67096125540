package mcp_test

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// legacyReads counts the KV reads of the sessions' bucket under one-token keys (those of
// Corral before principal keys) that gateways send from now on: each a NATS round trip.
func legacyReads(t *testing.T, url string) func() int {
	t.Helper()
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	msgs := make(chan *nats.Msg, 1<<12)
	_, err = nc.ChanSubscribe("$JS.API.DIRECT.GET.KV_"+broker.SessionBucket+".>", msgs)
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	keyed := "$KV." + broker.SessionBucket + "."
	return func() int {
		require.NoError(t, nc.Flush()) // a read sent before is in msgs
		n := 0
		for {
			select {
			case m := <-msgs:
				_, key, ok := strings.Cut(m.Subject, keyed)
				if ok && !strings.Contains(key, ".") {
					n++
				}
			default:
				return n
			}
		}
	}
}

// BenchmarkCall's implicit row (a call with serial and no lease) paid a second KV read per
// call for 25 h after each gateway start: its miss under the principal's key read the key of
// Corral before too, though none was there. Once the gateway's watch of those keys has caught
// up, such a miss asks NATS nothing more.
func TestMissReadsNoLegacyKeyTheWatchNeverSaw(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	c := f.Client("implicit-caller")
	implicit := map[string]any{"serial": "n1-p2"}
	reads := legacyReads(t, f.URL)
	farmtest.MustCall(t, c, "get_screen_size", implicit) // its miss starts the watch
	require.Eventually(t, func() bool {
		reads()
		farmtest.MustCall(t, c, "get_screen_size", implicit)
		return reads() == 0
	}, 10*time.Second, 20*time.Millisecond, "each call without a lease still reads the key of Corral before")
	for range 5 {
		farmtest.MustCall(t, c, "get_screen_size", implicit)
	}
	require.Zero(t, reads(), "calls after the watch caught up read the key of Corral before")
}

// The watch ends with its gateway: a stopped gateway in a process that lives on leaves it
// not running, as it does its session sweeper.
func TestClosedGatewayEndsItsLegacyWatch(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	c, err := client.NewStreamableHttpClient(hs.URL + "/mcp")
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.Start(t.Context()))
	_, err = c.Initialize(t.Context(), mcpgo.InitializeRequest{})
	require.NoError(t, err)
	farmtest.MustCall(t, c, "get_screen_size", map[string]any{"serial": "n1-p1"}) // a miss: the watch starts
	done := mcp.LegacyWatchDone(g)
	require.NotNil(t, done, "no watch started")
	g.Close()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the watch runs on after Close")
	}
}
