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
	leases      *prometheus.GaugeVec
	leaseEvents *prometheus.CounterVec
	leaseWait   prometheus.Histogram
	queueDepth  *prometheus.GaugeVec
	queueWait   prometheus.Histogram
	queueFulls  *prometheus.CounterVec
	tasks       *prometheus.CounterVec
	taskTime    *prometheus.HistogramVec
	restarts    *prometheus.CounterVec
	heartbeats  *prometheus.CounterVec
	aborts      *prometheus.CounterVec
	handover    prometheus.Histogram
	shots       *prometheus.CounterVec
	shotBytes   *prometheus.CounterVec
	marks       *prometheus.CounterVec // pre_mark_operation's marked screens
	frames      *prometheus.CounterVec // the console's live screens (capture.go)
	frameBytes  *prometheus.CounterVec
	watched     *prometheus.GaugeVec
	waiting     *prometheus.GaugeVec // by principal (fair shares)
	served      *prometheus.CounterVec
	quota       *prometheus.CounterVec

	// Console captures in drivers now, refused for one still there, and given up overdue
	// without a restart (capture_calls.go).
	capturesRunning   *prometheus.GaugeVec
	capturesRefused   *prometheus.CounterVec
	capturesAbandoned *prometheus.CounterVec

	// Per device, for the drill-down dashboard: nine series a device.
	deviceState *deviceStates // and corral_devices
	deviceTasks *prometheus.CounterVec
	deviceBusy  *prometheus.CounterVec
	deviceQueue *prometheus.GaugeVec
	deviceGauge *prometheus.GaugeVec
}

// Abort causes (corral_aborts_total): an abort_task call (an agent, or an operator's corral
// abort), the caller going away (a cancelled or dropped MCP call), a lease reaching its maximum,
// a lease revoked by an operator's forced release.
var abortCauses = []string{"abort_task", "client_cancelled", "lease_max", "revoked"}

// clientCancelled is the By of the abort broker.Client sends when its caller went away.
const clientCancelled = "client cancelled"

var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300}

// NewMetrics registers the actors' metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		leases: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_leases_held",
			Help: "Explicit leases held, by node."}, []string{"node"}),
		leaseEvents: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_lease_events_total",
			Help: "Lease grants and ends by node and kind (granted, released, expired, revoked)."}, []string{"node", "event"}),
		leaseWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corral_lease_wait_seconds",
			Help: "Time from asking for a lease to getting it.", Buckets: latencyBuckets}),
		queueDepth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_queue_depth",
			Help: "Tasks and lease requests waiting in device queues, by node."}, []string{"node"}),
		queueWait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corral_queue_wait_seconds",
			Help: "Time a task waited between submission and start.", Buckets: latencyBuckets}),
		queueFulls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_queue_full_total",
			Help: "Tasks and lease requests refused because their device's queue was full (--max-queue), by node."}, []string{"node"}),
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_tasks_total",
			Help: "Tasks by tool and outcome, as decided by the owner node."}, []string{"tool", "outcome"}),
		taskTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "corral_task_duration_seconds",
			Help: "Task time from submission to answer, by tool.", Buckets: latencyBuckets}, []string{"tool"}),
		restarts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_actor_restarts_total",
			Help: "Actor restarts by node and actor kind."}, []string{"node", "kind"}),
		heartbeats: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_node_heartbeats_total",
			Help: "Heartbeats a node has published."}, []string{"node"}),
		aborts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_aborts_total",
			Help: "Tasks aborted (running or queued) by node and cause: abort_task, client_cancelled, lease_max, revoked."}, []string{"node", "cause"}),
		handover: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "corral_handover_seconds",
			Help: "Time a device stood free while someone waited: from its task's driver returning (or its lease ending) " +
				"to the next queued task starting or queued lease being granted.", Buckets: latencyBuckets}),
		shots: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_screenshots_total",
			Help: "Task screenshots (agent steps', marked screens) a node kept in the farm's object store, by node and outcome (saved, failed)."}, []string{"node", "outcome"}),
		shotBytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_screenshot_bytes_total",
			Help: "Bytes of task screenshots (agent steps', marked screens) a node saved in the farm's object store."}, []string{"node"}),
		marks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_marked_screenshots_total",
			Help: "Screens an action acted on, its target marked (pre_mark_operation), by node and outcome: saved, or failed (not captured or not kept; the action ran)."},
			[]string{"node", "outcome"}),
		frames: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_console_frames_total",
			Help: "Live screen frames a node captured and published for the console's watchers, by node."}, []string{"node"}),
		frameBytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_console_frame_bytes_total",
			Help: "Bytes of JPEG live screen frames a node published for the console, by node."}, []string{"node"}),
		watched: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_console_watched_devices",
			Help: "Devices of a node whose screens someone watches in the console now (each has one capture loop), by node."}, []string{"node"}),
		capturesRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_console_captures_running",
			Help: "Console screen captures in their devices' drivers now, by node: one a device at most, also past a capture's timeout and its actor's restart."}, []string{"node"}),
		capturesRefused: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_console_captures_refused_total",
			Help: "Console screen captures refused because the device's previous one had not returned from its driver yet (past its timeout, the actor restarted), by node."}, []string{"node"}),
		capturesAbandoned: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_console_captures_abandoned_total",
			Help: "Console screen captures given up overdue, no task waiting for the device: a slow driver, not restarted; no capture of the device starts until it returns. By node."}, []string{"node"}),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_queue_waiting",
			Help: "Tasks and lease requests waiting in a node's device queues, by principal."}, []string{"node", "principal"}),
		served: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_queue_served_total",
			Help: "Waiters a node served from its device queues, by principal: their rates show how principals share busy devices."}, []string{"node", "principal"}),
		quota: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_queue_quota_refusals_total",
			Help: "Tasks and lease requests a node refused because their principal had max_queued waiting already (the refusal names the principal)."}, []string{"node"}),
		deviceState: newDeviceStates(),
		deviceTasks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_device_tasks_total",
			Help: "Tasks answered by device and outcome."}, []string{"node", "serial", "outcome"}),
		deviceBusy: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_device_busy_seconds_total",
			Help: "Time a device spent running tasks (its rate is the device's utilisation)."}, []string{"node", "serial"}),
		deviceQueue: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_device_queue_depth",
			Help: "Tasks and lease requests waiting in a device's queue."}, []string{"node", "serial"}),
		deviceGauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "corral_device_reading",
			Help: "What a device's driver measures of itself, by name (an arm rig: calibration_error_mm, calibration_residual_p95_mm, gestures, alarm; an iPhone: wda_up, wda_restarts; a browser: memory_mib), as of its last task, health report (an iPhone's supervisor probes every 2 s) or halt."},
			[]string{"node", "serial", "name"}),
	}
	reg.MustRegister(m.leases, m.leaseEvents, m.leaseWait, m.queueDepth, m.queueWait, m.queueFulls, m.tasks, m.taskTime, m.restarts, m.heartbeats,
		m.aborts, m.handover, m.shots, m.shotBytes, m.marks, m.frames, m.frameBytes, m.watched, m.capturesRunning, m.capturesRefused, m.capturesAbandoned, m.waiting, m.served, m.quota, m.deviceState, m.deviceTasks, m.deviceBusy, m.deviceQueue, m.deviceGauge)
	return m
}

// KnowNode creates the node's series so that zeros are visible.
func (m *Metrics) KnowNode(node string) {
	m.deviceState.know(node)
	m.leases.WithLabelValues(node)
	m.heartbeats.WithLabelValues(node)
	m.queueDepth.WithLabelValues(node)
	m.queueFulls.WithLabelValues(node)
	m.quota.WithLabelValues(node)
	// The fair-share series of the one principal a farm without a policy has, so that its
	// dashboard's rates have a sample from before the first wait; a policy's principals get
	// theirs when they first wait.
	m.waiting.WithLabelValues(node, broker.Anonymous)
	m.served.WithLabelValues(node, broker.Anonymous)
	for _, e := range []string{"granted", "released", "expired", "revoked"} {
		m.leaseEvents.WithLabelValues(node, e)
	}
	for _, k := range []string{"device", "scheduler"} {
		m.restarts.WithLabelValues(node, k)
	}
	for _, c := range abortCauses {
		m.aborts.WithLabelValues(node, c)
	}
	for _, o := range []string{"saved", "failed"} {
		m.shots.WithLabelValues(node, o)
		m.marks.WithLabelValues(node, o)
	}
	m.shotBytes.WithLabelValues(node)
	m.frames.WithLabelValues(node)
	m.frameBytes.WithLabelValues(node)
	m.watched.WithLabelValues(node)
	m.capturesRunning.WithLabelValues(node)
	m.capturesRefused.WithLabelValues(node)
	m.capturesAbandoned.WithLabelValues(node)
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

// deviceSeries are a device's own series, looked up once when it joins: a call touches them
// several times.
type deviceSeries struct {
	tasks map[string]prometheus.Counter // by outcome
	busy  prometheus.Counter
	queue prometheus.Gauge
	other func(outcome string) prometheus.Counter // an outcome not in broker.Outcomes
}

// device returns a device's series, created at zero.
func (m *Metrics) device(node, serial string) *deviceSeries {
	ds := &deviceSeries{tasks: make(map[string]prometheus.Counter, len(broker.Outcomes)),
		busy: m.deviceBusy.WithLabelValues(node, serial), queue: m.deviceQueue.WithLabelValues(node, serial),
		other: func(o string) prometheus.Counter { return m.deviceTasks.WithLabelValues(node, serial, o) }}
	for _, o := range broker.Outcomes {
		ds.tasks[o] = m.deviceTasks.WithLabelValues(node, serial, o)
	}
	return ds
}

// moveDevice shows a device in a new state. One series a device, labelled with its current
// state: at 10,000 devices a series for every state (0 for the others) cost 50,000 series and
// ~100 MiB more.
func (m *Metrics) moveDevice(platform, node, serial, state string) {
	m.deviceState.set(deviceKey{node, platform, serial}, state)
}

func (m *Metrics) leaseGranted(node string, waited time.Duration) {
	m.leases.WithLabelValues(node).Inc()
	m.leaseEvents.WithLabelValues(node, "granted").Inc()
	m.leaseWait.Observe(waited.Seconds())
}

func (m *Metrics) leaseEnded(node, what string) {
	m.leases.WithLabelValues(node).Dec()
	m.leaseEvents.WithLabelValues(node, what).Inc()
}

func (m *Metrics) queued(node string, ds *deviceSeries, principal string, delta float64) {
	m.queueDepth.WithLabelValues(node).Add(delta)
	ds.queue.Add(delta)
	m.waiting.WithLabelValues(node, principal).Add(delta)
}

// servedWaiter counts a waiter that got its device: a task started or a lease granted.
func (m *Metrics) servedWaiter(node, principal string) {
	m.served.WithLabelValues(node, principal).Inc()
}

func (m *Metrics) queueFull(node string) { m.queueFulls.WithLabelValues(node).Inc() }

func (m *Metrics) queueQuota(node string) { m.quota.WithLabelValues(node).Inc() }

func (m *Metrics) task(tool, outcome string, d time.Duration) {
	m.tasks.WithLabelValues(tool, outcome).Inc()
	m.taskTime.WithLabelValues(tool).Observe(d.Seconds())
}

// SetDeviceGauges sets the gauges a device's driver reports of itself (device.Gauger).
func (m *Metrics) SetDeviceGauges(node, serial string, gauges map[string]float64) {
	for name, v := range gauges {
		m.deviceGauge.WithLabelValues(node, serial, name).Set(v)
	}
}

// deviceTask counts a task of a known device; busy is how long it ran (zero if it never started).
func (ds *deviceSeries) task(outcome string, busy time.Duration) {
	c, ok := ds.tasks[outcome]
	if !ok {
		c = ds.other(outcome)
	}
	c.Inc()
	ds.busy.Add(busy.Seconds())
}

// aborted counts n tasks aborted for cause (see abortCauses).
func (m *Metrics) aborted(node, cause string, n int) {
	if n > 0 {
		m.aborts.WithLabelValues(node, cause).Add(float64(n))
	}
}

// abortCause names the cause of an abort request from its By.
func abortCause(by string) string {
	if by == clientCancelled {
		return "client_cancelled"
	}
	return "abort_task"
}

// handedOver observes a hand-over that began when the device became free.
func (m *Metrics) handedOver(freed time.Time) { m.handover.Observe(time.Since(freed).Seconds()) }

func (m *Metrics) restart(node, kind string) { m.restarts.WithLabelValues(node, kind).Inc() }

// Screenshot counts a screenshot the node saved (err nil) or failed to save.
func (m *Metrics) Screenshot(node string, bytes int, err error) {
	if err != nil {
		m.shots.WithLabelValues(node, "failed").Inc()
		return
	}
	m.shots.WithLabelValues(node, "saved").Inc()
	m.shotBytes.WithLabelValues(node).Add(float64(bytes))
}

// MarkedScreenshot counts a marked screenshot the node saved (err nil), or could not make or
// keep.
func (m *Metrics) MarkedScreenshot(node string, err error) {
	if err != nil {
		m.marks.WithLabelValues(node, "failed").Inc()
		return
	}
	m.marks.WithLabelValues(node, "saved").Inc()
}

// Heartbeat counts a heartbeat the node published.
func (m *Metrics) Heartbeat(node string) { m.heartbeats.WithLabelValues(node).Inc() }

// Frame counts a live screen frame the node published for the console.
func (m *Metrics) Frame(node string, bytes int) {
	m.frames.WithLabelValues(node).Inc()
	m.frameBytes.WithLabelValues(node).Add(float64(bytes))
}

// Watched moves the count of the node's devices whose screens are watched.
func (m *Metrics) Watched(node string, delta float64) { m.watched.WithLabelValues(node).Add(delta) }
