package broker_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// stallAtVerdict is a log handler that stalls a link as its gateway says a node is lost: the
// verdict's writes, which come next, go into the stall. When the first of those writes ends
// (its outcome logged: unanswered in time, or failed as the stalled connection was dropped) it
// asks ready what the gateway says then, once.
type stallAtVerdict struct {
	slog.Handler
	stall func()
	ready func()
}

// verdictWriteEnded says whether a record is the outcome of a loss verdict's registry write
// (broker nodeLost).
func verdictWriteEnded(r slog.Record) bool { return strings.HasPrefix(r.Message, "registry update") }

// Enabled lets Debug through too, for the skipped write's record; only what the handler
// under it takes is written.
func (h stallAtVerdict) Enabled(context.Context, slog.Level) bool { return true }

func (h stallAtVerdict) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == "node lost" {
		h.stall()
	}
	if verdictWriteEnded(r) {
		h.ready()
	}
	if !h.Handler.Enabled(ctx, r.Level) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h stallAtVerdict) WithAttrs(a []slog.Attr) slog.Handler {
	return stallAtVerdict{h.Handler.WithAttrs(a), h.stall, h.ready}
}

func (h stallAtVerdict) WithGroup(name string) slog.Handler {
	return stallAtVerdict{h.Handler.WithGroup(name), h.stall, h.ready}
}

// Helper L saw a gateway whose link to NATS stalled right after it declared a node lost say
// nothing of the stall for ~10 s: the liveness loop ran the verdict's writes itself, each into
// the stall until its own deadline (reapWait), and made no check meanwhile. The verdict's
// writes go on beside the loop: the gateway is not ready, saying its server does not answer,
// while the verdict's first write is still held in the stall (the order is asserted, not a
// time: the write ends at reapWait, or when the stalled connection is dropped, which comes
// after the gateway said so), drops the stalled connection, and the verdict is recorded once
// the link heals.
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
	var client atomic.Pointer[broker.Client]
	readyAtFirstWrite := make(chan error, 1) // what the gateway said as the verdict's first write ended
	var stallOnce, readyOnce sync.Once
	log := slog.New(stallAtVerdict{Handler: slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelInfo}),
		stall: func() { stallOnce.Do(link.Stall) },
		ready: func() { readyOnce.Do(func() { readyAtFirstWrite <- client.Load().Ready() }) },
	}).With("part", "gateway-stalled")
	nc := f.connect("gateway-stalled")
	s, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	c, err := broker.NewClient(t.Context(), nc, s, broker.ClientOptions{Log: log, Reap: true, Metrics: broker.NewClientMetrics(reg)})
	require.NoError(t, err)
	client.Store(c)
	f.gateways = append(f.gateways, &lossGateway{client: c, metrics: reg, nc: nc})
	f.waitAlive("n1")
	require.NoError(t, c.Ready())

	f.nodes["n1"].Kill()
	notAnswering := func() bool {
		err := c.Ready()
		return err != nil && strings.Contains(err.Error(), "the NATS server does not answer (stalled for ")
	}
	// The order: what the gateway said as the verdict's first write ended, whether or not this
	// test saw it say 'does not answer' before (a gateway whose checks wait for the verdict's
	// writes says nothing until the write gives up, reapWait into the stall).
	var atFirstWrite error
	firstWriteEnded := func() bool {
		select {
		case atFirstWrite = <-readyAtFirstWrite:
			return true
		default:
			return false
		}
	}
	said, ended := false, false
	require.Eventually(t, func() bool {
		said, ended = said || notAnswering(), ended || firstWriteEnded()
		return said || ended
	}, waitLong, 10*time.Millisecond, "the gateway, stalled as it declared n1 lost, neither said its server does not answer nor ended the verdict's first write")
	if said {
		t.Logf("not ready: %v", c.Ready())
	}
	if !ended {
		require.Eventually(t, firstWriteEnded, waitLong, 10*time.Millisecond, "the verdict's first write never ended in the stall")
	}
	// Not connected is said too once the stalled connection is dropped, which may end the write.
	require.Error(t, atFirstWrite, "the verdict's first write ended in the stall before the gateway said its server does not answer")
	t.Logf("as the verdict's first write ended: %v", atFirstWrite)
	require.Eventually(t, func() bool { return !nc.IsConnected() }, waitLong, 10*time.Millisecond,
		"the gateway never dropped its stalled connection")

	link.Resume()
	require.Eventually(t, func() bool { return c.Ready() == nil }, waitLong, 10*time.Millisecond,
		"the gateway not ready again after the link healed: %v", c.Ready())
	require.Eventually(t, func() bool { return f.recorded("n1", "lost") == 1 }, waitLong, 20*time.Millisecond,
		"n1's loss never recorded after the link healed")
}
