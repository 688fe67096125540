package console

import "github.com/prometheus/client_golang/prometheus"

// Metrics of the console, on the gateway. The nodes count the frames they capture
// (corral_console_frames_total); these count who watches and what the gateway relays.
type Metrics struct {
	streams prometheus.Gauge
	watched prometheus.Gauge
	frames  prometheus.Counter
}

// NewMetrics registers the console's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		streams: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_console_watchers",
			Help: "Live screen streams open on this gateway: one per console page that shows screens."}),
		watched: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_console_feeds",
			Help: "Devices whose screens this gateway watches for its console pages (one subscription and one capture each, however many pages)."}),
		frames: prometheus.NewCounter(prometheus.CounterOpts{Name: "corral_console_frames_relayed_total",
			Help: "Live screen frames this gateway handed to console pages (a frame shown on two pages counts twice)."}),
	}
	reg.MustRegister(m.streams, m.watched, m.frames)
	return m
}

func (m *Metrics) watchers(delta float64) {
	if m != nil {
		m.streams.Add(delta)
	}
}

func (m *Metrics) feeds(delta float64) {
	if m != nil {
		m.watched.Add(delta)
	}
}

func (m *Metrics) relayed(n int) {
	if m != nil {
		m.frames.Add(float64(n))
	}
}
