package mcp

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
)

// Metrics of the front door.
type Metrics struct {
	calls   *prometheus.CounterVec
	latency *prometheus.HistogramVec
	denied  *prometheus.CounterVec
	// reclaimed counts the connections closed at --max-conns to make room (listener.go): idle
	// keep-alives, and those that had not sent a whole request's headers.
	reclaimed prometheus.Counter
	// sessions are the live protocol sessions by principal (sessions.go), sessionCap the cap
	// of each principal's (--max-sessions): how close a principal is to losing idle ones.
	sessions   *prometheus.GaugeVec
	sessionCap prometheus.Gauge
	// sessionsEvicted counts the sessions' entries dropped past --sessions-per-principal.
	sessionsEvicted *prometheus.CounterVec
}

// NewMetrics registers the front door's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corral_mcp_tool_calls_total",
			Help: "MCP tool calls by tool and outcome.",
		}, []string{"tool", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "corral_mcp_tool_call_duration_seconds",
			Help:    "MCP tool call latency at the gateway by tool and outcome.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"tool", "outcome"}),
		denied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corral_gateway_denied_total",
			Help: "Requests and tool calls the gateway refused before anything reached a device, by reason: no_token, bad_token, host, origin, tool, device, rate, queue, body, slow_body, bad_body, session, holder, quota, profile, unknown_tool.",
		}, []string{"reason"}),
		reclaimed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "corral_gateway_idle_conns_reclaimed_total",
			Help: "Connections the gateway closed to make room for a new one at --max-conns: idle keep-alives, and connections that had not sent a whole request's headers.",
		}),
		sessions: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "corral_gateway_sessions",
			Help: "Live MCP protocol sessions this gateway keeps, by principal (the auth policy's; anonymous, everyone, without one).",
		}, []string{"principal"}),
		sessionCap: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "corral_gateway_session_cap",
			Help: "Live MCP protocol sessions one principal keeps on this gateway (--max-sessions) before opening another forgets its least recently used idle one.",
		}),
		sessionsEvicted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "corral_gateway_sessions_evicted_total",
			Help: "MCP sessions whose selection and leases this gateway dropped from NATS, by principal: the principal opened more than --sessions-per-principal, and theirs were its oldest.",
		}, []string{"principal"}),
	}
	for _, r := range denyReasons {
		m.denied.WithLabelValues(r)
	}
	reg.MustRegister(m.calls, m.latency, m.denied, m.reclaimed, m.sessions, m.sessionCap, m.sessionsEvicted)
	return m
}

// deny counts a refusal by reason (see denyReasons).
func (m *Metrics) deny(reason string) {
	m.denied.WithLabelValues(reason).Inc()
}

// knowTool creates the call counts of a tool for every outcome, so zeros are visible, and its
// latency histogram for successful calls, so a dashboard's rate() has a sample from before the
// tool's first call (rate needs two). The other outcomes' histograms are born with their first
// call: 22 series each for every tool would make /metrics four times as large (665 KB).
func (m *Metrics) knowTool(tool string) {
	for _, o := range broker.Outcomes {
		m.calls.WithLabelValues(tool, o)
	}
	m.latency.WithLabelValues(tool, broker.OutcomeSucceeded)
}

func (m *Metrics) observeCall(tool, outcome string, d time.Duration) {
	m.seriesOf(tool, outcome).observe(d)
}

// callSeries are the call count and latency of one tool and outcome.
type callSeries struct {
	calls   prometheus.Counter
	latency prometheus.Observer
}

// seriesOf looks up the series of tool and outcome; a caller observing one pair often keeps
// them, as a lookup hashes both labels under the vector's lock on every call.
func (m *Metrics) seriesOf(tool, outcome string) callSeries {
	return callSeries{calls: m.calls.WithLabelValues(tool, outcome), latency: m.latency.WithLabelValues(tool, outcome)}
}

func (s callSeries) observe(d time.Duration) {
	s.calls.Inc()
	s.latency.Observe(d.Seconds())
}
