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
	}
	reg.MustRegister(m.calls, m.latency)
	return m
}

// knowTool creates the series of a tool for every outcome, so zeros are visible.
func (m *Metrics) knowTool(tool string) {
	for _, o := range broker.Outcomes {
		m.calls.WithLabelValues(tool, o)
	}
}

func (m *Metrics) observeCall(tool, outcome string, d time.Duration) {
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.latency.WithLabelValues(tool, outcome).Observe(d.Seconds())
}
