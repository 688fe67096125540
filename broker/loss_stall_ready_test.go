package broker_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// stallAtVerdict is a log handler that stalls a link as its gateway says a node is lost: the
// verdict's writes, which come next, go into the stall.
type stallAtVerdict struct {
	slog.Handler
	stall func()
}

func (h stallAtVerdict) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "node lost" {
		h.stall()
	}
	return h.Handler.Handle(ctx, r)
}

func (h stallAtVerdict) WithAttrs(a []slog.Attr) slog.Handler {
	return stallAtVerdict{h.Handler.WithAttrs(a), h.stall}
}

func (h stallAtVerdict) WithGroup(name string) slog.Handler {
	return stallAtVerdict{h.Handler.WithGroup(name), h.stall}
}

// Helper L saw a gateway whose link to NATS stalled right after it declared a node lost say
// nothing of the stall for ~10 s: the liveness loop ran the verdict's writes itself, each into
// the stall until its own deadline (reapWait), and made no check meanwhile. The verdict's
// writes go on beside the loop: the gateway is not ready, saying its server does not answer,
// as soon as it would be with no verdict (TestGatewayWhoseServerDoesNotAnswerIsNotReadyAndReconnects),
// drops the stalled connection, and the verdict is recorded once the link heals.
func TestGatewayStalledAsItDeclaresANodeLostSaysSoInTime(t *testing.T) {
	var link broker.StallLink
	f := startRoutedLossFarm(t, 0, func(addr string) func(string, string) string {
		link = broker.StartStallLink(t, addr)
		return func(part, url string) string {
			if part == "gateway-stalled" {
				return link.URL()
			}
			return url
		}
	}, "n1")
	stalledAt := make(chan time.Time, 1)
	var once sync.Once
	log := slog.New(stallAtVerdict{Handler: slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelInfo}),
		stall: func() { once.Do(func() { link.Stall(); stalledAt <- time.Now() }) }}).With("part", "gateway-stalled")
	nc := f.connect("gateway-stalled")
	s, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	c, err := broker.NewClient(t.Context(), nc, s, broker.ClientOptions{Log: log, Reap: true, Metrics: broker.NewClientMetrics(reg)})
	require.NoError(t, err)
	f.gateways = append(f.gateways, &lossGateway{client: c, metrics: reg, nc: nc})
	f.waitAlive("n1")
	require.NoError(t, c.Ready())

	f.nodes["n1"].Kill()
	var stalled time.Time
	select {
	case stalled = <-stalledAt:
	case <-time.After(waitLong):
		t.Fatal("the gateway never declared n1 lost")
	}
	notAnswering := func() bool {
		err := c.Ready()
		return err != nil && strings.Contains(err.Error(), "the NATS server does not answer (stalled for ")
	}
	require.Eventually(t, notAnswering, 4*time.Second, 10*time.Millisecond,
		"the gateway, stalled as it declared n1 lost, did not say its server does not answer within 4 s (ready: %v)", c.Ready())
	t.Logf("not ready %s into the stall: %v", time.Since(stalled).Round(time.Millisecond), c.Ready())
	require.Eventually(t, func() bool { return !nc.IsConnected() }, 5*time.Second, 10*time.Millisecond,
		"the gateway never dropped its stalled connection")

	link.Resume()
	require.Eventually(t, func() bool { return c.Ready() == nil }, waitLong, 10*time.Millisecond,
		"the gateway not ready again after the link healed: %v", c.Ready())
	require.Eventually(t, func() bool { return f.recorded("n1", "lost") == 1 }, waitLong, 20*time.Millisecond,
		"n1's loss never recorded after the link healed")
}
