package actors

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
)

// Platforms gets a zero series in the device gauge for every node.
var knownPlatforms = []string{"android", "ios", "web", "arm"}

// Metrics of the node's actors. One Metrics serves every node of a process.
type Metrics struct {
	devices     *prometheus.GaugeVec
	leases      *prometheus.GaugeVec
	leaseEvents *prometheus.CounterVec
	handover    prometheus.Histogram
	queueDepth  *prometheus.GaugeVec
	queueWait   prometheus.Histogram
	tasks       *prometheus.CounterVec
	taskTime    *prometheus.HistogramVec
	restarts    *prometheus.CounterVec
	heartbeats  *prometheus.CounterVec
}

var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}

// NewMetrics registers the actors' metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		devices: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_devices",
			Help: "Devices by node, platform and state."}, []string{"node", "platform", "state"}),
		leases: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_leases_held",
			Help: "Explicit leases held, by node."}, []string{"node"}),
		leaseEvents: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_lease_events_total",
			Help: "Lease grants and ends by node and kind (granted, released, expired, revoked)."}, []string{"node", "event"}),
		handover: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corral_lease_wait_seconds",
			Help: "Time from asking for a lease to getting it.", Buckets: latencyBuckets}),
		queueDepth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_queue_depth",
			Help: "Tasks and lease requests waiting in device queues, by node."}, []string{"node"}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corral_queue_wait_seconds",
			Help: "Time a task waited between submission and start.", Buckets: latencyBuckets}),
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_tasks_total",
			Help: "Tasks by tool and outcome, as decided by the owner node."}, []string{"tool", "outcome"}),
		taskTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "corral_task_duration_seconds",
			Help: "Task time from submission to answer, by tool.", Buckets: latencyBuckets}, []string{"tool"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_actor_restarts_total",
			Help: "Actor restarts by node and actor kind."}, []string{"node", "kind"}),
		heartbeats: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_node_heartbeats_total",
			Help: "Heartbeats a node has published."}, []string{"node"}),
	}
	reg.MustRegister(m.devices, m.leases, m.leaseEvents, m.handover, m.queueDepth, m.queueWait, m.tasks, m.taskTime, m.restarts, m.heartbeats)
	return m
}

// KnowNode creates the node's series so that zeros are visible.
func (m *Metrics) KnowNode(node string) {
	for _, p := range knownPlatforms {
		for _, s := range broker.States {
			m.devices.WithLabelValues(node, p, s)
		}
	}
	m.leases.WithLabelValues(node)
	m.heartbeats.WithLabelValues(node)
	m.queueDepth.WithLabelValues(node)
	for _, e := range []string{"granted", "released", "expired", "revoked"} {
		m.leaseEvents.WithLabelValues(node, e)
	}
	for _, k := range []string{"device", "scheduler"} {
		m.restarts.WithLabelValues(node, k)
	}
}

// KnowTools creates every tool's series.
func (m *Metrics) KnowTools(tools []string) {
	for _, t := range tools {
		for _, o := range broker.Outcomes {
			m.tasks.WithLabelValues(t, o)
		}
		m.taskTime.WithLabelValues(t)
	}
}

func (m *Metrics) moveDevice(platform, node, from, to string) {
	if from != "" {
		m.devices.WithLabelValues(node, platform, from).Dec()
	}
	m.devices.WithLabelValues(node, platform, to).Inc()
}

func (m *Metrics) leaseGranted(node string, waited time.Duration) {
	m.leases.WithLabelValues(node).Inc()
	m.leaseEvents.WithLabelValues(node, "granted").Inc()
	m.handover.Observe(waited.Seconds())
}

func (m *Metrics) leaseEnded(node, what string) {
	m.leases.WithLabelValues(node).Dec()
	m.leaseEvents.WithLabelValues(node, what).Inc()
}

func (m *Metrics) queued(node string, delta float64) { m.queueDepth.WithLabelValues(node).Add(delta) }

func (m *Metrics) task(tool, outcome string, d time.Duration) {
	m.tasks.WithLabelValues(tool, outcome).Inc()
	m.taskTime.WithLabelValues(tool).Observe(d.Seconds())
}

func (m *Metrics) restart(node, kind string) { m.restarts.WithLabelValues(node, kind).Inc() }

// Heartbeat counts a heartbeat the node published.
func (m *Metrics) Heartbeat(node string) { m.heartbeats.WithLabelValues(node).Inc() }
