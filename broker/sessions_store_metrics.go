package broker

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
)

// sessionsStatusTimeout bounds the read of the sessions' bucket a scrape makes: a scrape while
// NATS is away shows no sample rather than hanging.
const sessionsStatusTimeout = 2 * time.Second

// sessionsStoreMetrics reports how full the sessions' bucket (SessionBucket) is, read from NATS
// when scraped. A full bucket refuses new sessions' writes (SessionsFull); without these, only
// answers and logs would say so, once it is too late.
type sessionsStoreMetrics struct {
	ctx          context.Context
	kv           jetstream.KeyValue
	log          *slog.Logger
	bytes, limit *prometheus.Desc
}

// NewSessionsStoreMetrics reports the sessions' bucket kv (Stores.Sessions) as
// corral_sessions_store_bytes and corral_sessions_store_max_bytes (its cap,
// --sessions-max-bytes; absent for a bucket without one): register it with a gateway's
// metrics. Each scrape asks NATS once; ctx ends those asks.
func NewSessionsStoreMetrics(ctx context.Context, kv jetstream.KeyValue, log *slog.Logger) prometheus.Collector {
	return &sessionsStoreMetrics{ctx: ctx, kv: kv, log: log,
		bytes: prometheus.NewDesc("corral_sessions_store_bytes",
			"Bytes the MCP sessions' NATS bucket ("+SessionBucket+") holds; at corral_sessions_store_max_bytes it refuses new sessions' writes.", nil, nil),
		limit: prometheus.NewDesc("corral_sessions_store_max_bytes",
			"The cap of the MCP sessions' NATS bucket ("+SessionBucket+", --sessions-max-bytes).", nil, nil)}
}

func (m *sessionsStoreMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.bytes
	ch <- m.limit
}

func (m *sessionsStoreMetrics) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(m.ctx, sessionsStatusTimeout)
	defer cancel()
	st, err := m.kv.Status(ctx)
	if err != nil {
		// Debug: NATS being away is told by other means; a log line a scrape would be noise.
		m.log.Debug("sessions' bucket not read for metrics", "bucket", SessionBucket, "err", err)
		return
	}
	ch <- prometheus.MustNewConstMetric(m.bytes, prometheus.GaugeValue, float64(st.Bytes()))
	if b, ok := st.(*jetstream.KeyValueBucketStatus); ok && b.StreamInfo().Config.MaxBytes > 0 {
		ch <- prometheus.MustNewConstMetric(m.limit, prometheus.GaugeValue, float64(b.StreamInfo().Config.MaxBytes))
	}
}
