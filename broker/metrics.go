package broker

import (
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// ClientMetrics measure the NATS round trips of a Client. A nil *ClientMetrics measures nothing.
type ClientMetrics struct {
	rtt  *prometheus.HistogramVec
	lost *prometheus.CounterVec
	up   *prometheus.GaugeVec
	// gone tells a lost node from one that said it stopped: both are down (up 0), only a lost
	// one is gone (CorralNodeLost pages on it, not on a node decommissioned cleanly).
	gone *prometheus.GaugeVec
	// shownLost is which nodes gone says are lost: the ones a reconnection checks against the
	// registry, for a forget it did not hear (node_forgotten.go).
	mu        sync.Mutex
	shownLost map[string]bool
}

// NewClientMetrics registers the client's metrics with reg.
func NewClientMetrics(reg prometheus.Registerer) *ClientMetrics {
	m := &ClientMetrics{rtt: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "corral_nats_request_duration_seconds",
		Help:    "Round trip of requests from a gateway or CLI to nodes over NATS, by endpoint (includes the task's own time).",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
	}, []string{"endpoint"}),
		lost: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_node_losses_total",
			Help: "Times this gateway declared a node lost after missing heartbeats (not a node that said it stopped)."}, []string{"node"}),
		up: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_node_up",
			Help: "1 while this gateway hears a node's heartbeats, 0 once it has declared the node lost or the node said it stopped."}, []string{"node"}),
		gone: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_node_lost",
			Help: "1 from this gateway's verdict that a node is lost until it hears the node again; 0 while it hears it and after the node said it stopped."}, []string{"node"}),
		shownLost: map[string]bool{},
	}
	for _, e := range []string{EndpointTask, EndpointAcquire, EndpointRelease, EndpointAbort, EndpointLeases} {
		m.rtt.WithLabelValues(e)
	}
	reg.MustRegister(m.rtt, m.lost, m.up, m.gone)
	return m
}

func (m *ClientMetrics) observe(endpoint string, d time.Duration) {
	if m != nil {
		m.rtt.WithLabelValues(endpoint).Observe(d.Seconds())
	}
}

// nodeBeat marks a node up on each of its heartbeats, and shows its losses from 0: a loss
// counter that appears at 1 is one increase() cannot see.
func (m *ClientMetrics) nodeBeat(node string) {
	if m != nil {
		m.up.WithLabelValues(node).Set(1)
		m.gone.WithLabelValues(node).Set(0)
		m.lost.WithLabelValues(node)
		m.showLost(node, false)
	}
}

func (m *ClientMetrics) nodeLost(node string) {
	if m != nil {
		m.lost.WithLabelValues(node).Inc()
		m.up.WithLabelValues(node).Set(0)
		m.gone.WithLabelValues(node).Set(1)
		m.showLost(node, true)
	}
}

// nodeLostBefore marks lost a node the registry says was lost before this gateway started
// (lost_at_start.go): lost and down, with its losses shown from 0, as this gateway declared
// none.
func (m *ClientMetrics) nodeLostBefore(node string) {
	if m != nil {
		m.lost.WithLabelValues(node)
		m.up.WithLabelValues(node).Set(0)
		m.gone.WithLabelValues(node).Set(1)
		m.showLost(node, true)
	}
}

// nodeStopped marks down a node that said it stopped; it counts no loss and is not lost.
func (m *ClientMetrics) nodeStopped(node string) {
	if m != nil {
		m.up.WithLabelValues(node).Set(0)
		m.gone.WithLabelValues(node).Set(0)
		m.showLost(node, false)
	}
}

// nodeForgotten drops a forgotten node's series (corral devices forget): a node stopped for
// good is no longer lost, nor down, and its losses are history.
func (m *ClientMetrics) nodeForgotten(node string) {
	if m != nil {
		m.up.DeleteLabelValues(node)
		m.gone.DeleteLabelValues(node)
		m.lost.DeleteLabelValues(node)
		m.showLost(node, false)
	}
}

// showLost notes whether node is shown lost (corral_node_lost 1).
func (m *ClientMetrics) showLost(node string, lost bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if lost {
		m.shownLost[node] = true
	} else {
		delete(m.shownLost, node)
	}
}

// lostShown lists, sorted, the nodes shown lost; none for a nil *ClientMetrics.
func (m *ClientMetrics) lostShown() []string {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, 0, len(m.shownLost))
	for node := range m.shownLost {
		out = append(out, node)
	}
	sort.Strings(out)
	return out
}
