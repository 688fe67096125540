package console

import "github.com/prometheus/client_golang/prometheus"

// Metrics of the console, on the gateway. The nodes count the frames they capture
// (corral_console_frames_total); these count who watches and what the gateway relays.
type Metrics struct {
	streams prometheus.Gauge
	watched prometheus.Gauge
	frames  prometheus.Counter
	actions *prometheus.CounterVec
	grids   prometheus.Counter
}

// Outcomes of an action (corral_console_actions_total's outcome label): a fixed set, so zeros
// show. refusedCrossSite and refusedCSRF (csrf.go) are the two others.
const (
	outcomeSucceeded  = "succeeded"   // the tool did it
	outcomeFailed     = "failed"      // the tool answered with an error: busy, bad input, the driver failed
	outcomeDenied     = "denied"      // the policy refused it
	outcomeBadRequest = "bad_request" // the console refused the request's body
)

var actionOutcomes = []string{outcomeSucceeded, outcomeFailed, outcomeDenied, outcomeBadRequest, refusedCrossSite, refusedCSRF}

// NewMetrics registers the console's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		streams: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_console_watchers",
			Help: "Live screen streams open on this gateway: one per console page that shows screens."}),
		watched: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_console_feeds",
			Help: "Devices whose screens this gateway watches for its console pages (one subscription and one capture each, however many pages)."}),
		frames: prometheus.NewCounter(prometheus.CounterOpts{Name: "corral_console_frames_relayed_total",
			Help: "Live screen frames this gateway handed to console pages (a frame shown on two pages counts twice)."}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_console_actions_total",
			Help: "Actions taken in the console (acquire, tap, swipe, type, home, back, release, abort, force_release) by outcome: succeeded, failed (the tool refused or failed: busy, bad input, driver), denied (by policy), bad_request, cross_site and csrf (refused as not from a console page)."},
			[]string{"action", "outcome"}),
		grids: prometheus.NewCounter(prometheus.CounterOpts{Name: "corral_console_grids_built_total",
			Help: "Device grids the console built: a page load, and a long poll's answer once the registry or the leases changed. Growing on a still farm, pages rebuild it for nothing."}),
	}
	for _, a := range actionNames() {
		for _, o := range actionOutcomes {
			m.actions.WithLabelValues(a, o)
		}
	}
	reg.MustRegister(m.streams, m.watched, m.frames, m.actions, m.grids)
	return m
}

func (m *Metrics) action(name, outcome string) {
	if m != nil {
		m.actions.WithLabelValues(name, outcome).Inc()
	}
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

func (m *Metrics) gridBuilt() {
	if m != nil {
		m.grids.Inc()
	}
}
