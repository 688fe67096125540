package nodes

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// When the mirror's writes keep failing (the NATS server's disk full, JetStream disabled, a
// bucket full, a value too large for its bucket), the node says so once, loudly, with what to
// do about the last failure (storetrouble.go), after storesDownAfter, then at most every
// storesRemindEvery, and once when writes work again; its readiness fails meanwhile.
const (
	storesDownAfter   = 5 * time.Second
	storesRemindEvery = time.Minute
)

// storeHealth follows whether the node's stores take the mirror's writes.
type storeHealth struct {
	node string
	log  *slog.Logger

	// linkSilent says whether the node's own round trips to NATS go unanswered (silence.go):
	// its writes fail then for its link, whatever the server's disk. nil: never.
	linkSilent func() bool

	mu                   sync.Mutex
	downAfter, remindGap time.Duration // (tests shorten them)
	failingSince         time.Time     // zero while writes work
	told, remindedAt     time.Time     // when the run of failures was logged as an outage, and last reminded
	lastErr              error
	failed, dropped      uint64 // writes, since the node started
	droppedInRun         uint64
	refused              map[string]error // registry entries given up as too large, by serial (entry_refused.go)

	failedDesc, droppedDesc *prometheus.Desc
}

func newStoreHealth(node string, log *slog.Logger) *storeHealth {
	labels := prometheus.Labels{"node": node}
	return &storeHealth{node: node, log: log, downAfter: storesDownAfter, remindGap: storesRemindEvery,
		failedDesc: prometheus.NewDesc("corral_node_store_writes_failed_total",
			"Writes of registry entries, leases, events and task records NATS did not take (each retried).", nil, labels),
		droppedDesc: prometheus.NewDesc("corral_node_store_writes_dropped_total",
			"Events and task records dropped after every retry failed (get_task_result then finds no record).", nil, labels)}
}

// wrote notes a flush: failed writes of it (retried), dropped ones (given up), and err, the last
// failure. A flush without failures ends an outage.
func (h *storeHealth) wrote(failed, dropped int, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failed += uint64(failed)
	h.dropped += uint64(dropped)
	if failed+dropped == 0 {
		h.recovered()
		return
	}
	now := time.Now()
	if dropped > 0 && h.droppedInRun == 0 {
		h.log.Error(fmt.Sprintf("NATS took no write of some task records and events in %d tries: dropped (counted in "+
			"corral_node_store_writes_dropped_total; get_task_result finds no record of those calls)", maxTries), "dropped", dropped, "err", err)
	}
	h.lastErr, h.droppedInRun = err, h.droppedInRun+uint64(dropped)
	switch {
	case h.failingSince.IsZero():
		h.failingSince = now
		h.log.Warn("NATS writes failed; retrying", "failed", failed, "err", err)
	case h.told.IsZero() && now.Sub(h.failingSince) >= h.downAfter:
		h.told, h.remindedAt = now, now
		h.log.Error(fmt.Sprintf("the NATS stores take no writes: task records and events are kept in memory and retried "+
			"(%d tries), then dropped, and get_task_result finds no record of those calls. %s", maxTries, h.hint(err)),
			"failing_for", now.Sub(h.failingSince).Round(time.Second), "dropped", h.droppedInRun, "err", err)
	case !h.told.IsZero() && now.Sub(h.remindedAt) >= h.remindGap:
		h.remindedAt = now
		h.log.Error("the NATS stores still take no writes; "+h.short(err),
			"failing_for", now.Sub(h.failingSince).Round(time.Second), "dropped", h.droppedInRun, "err", err)
	}
}

// Advice for a link that does not answer, in place of storeTrouble's.
const (
	silentLinkHint = "This node's own round trips to NATS do not come back: its link to the NATS server does not answer " +
		"(a network cut or stall), so the writes cannot reach it, whatever the server's disk. Check the node's network to NATS"
	silentLinkShort = "this node's link to NATS does not answer"
)

// hint is what to do about err, a failed write: the node's silent link, or what err shows.
func (h *storeHealth) hint(err error) string {
	if h.linkSilent != nil && h.linkSilent() {
		return silentLinkHint
	}
	return troubleOf(err).hint()
}

// short is hint in a few words.
func (h *storeHealth) short(err error) string {
	if h.linkSilent != nil && h.linkSilent() {
		return silentLinkShort
	}
	return troubleOf(err).short()
}

// recovered ends an outage, saying so once. h.mu is held.
func (h *storeHealth) recovered() {
	if h.failingSince.IsZero() {
		return
	}
	h.log.Info("NATS writes work again", "failed_for", time.Since(h.failingSince).Round(time.Second), "dropped", h.droppedInRun)
	h.failingSince, h.told, h.remindedAt, h.lastErr, h.droppedInRun = time.Time{}, time.Time{}, time.Time{}, nil, 0
}

// ready fails while writes have kept failing for downAfter, or while a device's registry
// entry is given up as too large.
func (h *storeHealth) ready() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failingSince.IsZero() || time.Since(h.failingSince) < h.downAfter {
		return h.refusedReason()
	}
	return fmt.Errorf("the stores take no writes (failing for %s: %v; %s)",
		time.Since(h.failingSince).Round(time.Second), h.lastErr, h.short(h.lastErr))
}

func (h *storeHealth) Describe(ch chan<- *prometheus.Desc) {
	ch <- h.failedDesc
	ch <- h.droppedDesc
}

func (h *storeHealth) Collect(ch chan<- prometheus.Metric) {
	h.mu.Lock()
	failed, dropped := h.failed, h.dropped
	h.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(h.failedDesc, prometheus.CounterValue, float64(failed))
	ch <- prometheus.MustNewConstMetric(h.droppedDesc, prometheus.CounterValue, float64(dropped))
}

// StoresReady fails while the node's writes to NATS have kept failing for a while (a full
// disk under the NATS server): for the node's /readyz, with its connection's check.
func (n *Node) StoresReady() error { return n.mirror.health.ready() }

// StoreMetrics counts the node's failed and dropped writes to NATS
// (corral_node_store_writes_failed_total, corral_node_store_writes_dropped_total, by node):
// register it with the node's other metrics.
func (n *Node) StoreMetrics() prometheus.Collector { return n.mirror.health }
