package embedded

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/prometheus/client_golang/prometheus"
)

// leafCheckEvery is how often a site's server is asked whether its uplink is up.
const leafCheckEvery = 250 * time.Millisecond

// WatchUplink shows a site's uplink to its hub on /metrics (corral_leaf_up,
// corral_leaf_connects_total) and in the log, until ctx ends.
func WatchUplink(ctx context.Context, ns *server.Server, reg prometheus.Registerer, log *slog.Logger) {
	up := prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_leaf_up",
		Help: "1 while this edge site's NATS is connected to its hub as a leaf node, 0 while the uplink is down (the site serves its own callers meanwhile)."})
	connects := prometheus.NewCounter(prometheus.CounterOpts{Name: "corral_leaf_connects_total",
		Help: "Times this edge site's NATS connected to its hub, the first time included."})
	reg.MustRegister(up, connects)
	go func() {
		t := time.NewTicker(leafCheckEvery)
		defer t.Stop()
		was, since := false, time.Now()
		for {
			if now := ns.NumLeafNodes() > 0; now != was {
				if now {
					connects.Inc()
					up.Set(1)
					log.Info("uplink to the hub up", "after", time.Since(since).Round(time.Millisecond))
				} else {
					up.Set(0)
					log.Warn("uplink to the hub down: this site serves its own callers; the hub catches up when it is back")
				}
				was, since = now, time.Now()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
}
