package service

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/vision"
)

// Outcomes of a request (the outcome label of corral_vision_requests_total).
const (
	OutcomeOK       = "ok"
	OutcomeBadInput = "bad_input" // the caller's fault: not an image, too large, a malformed request
	OutcomeFailed   = "failed"    // the engine failed or panicked, or the answer could not be sent
	OutcomeTimeout  = "timeout"   // no answer within Options.Timeout (waiting included)
	OutcomeBusy     = "busy"      // refused: Options.MaxWaiting requests were already waiting
)

var (
	ops      = []string{vision.EndpointOCR, vision.EndpointMatch, vision.EndpointElements, vision.EndpointDiff, vision.EndpointAnnotate}
	outcomes = []string{OutcomeOK, OutcomeBadInput, OutcomeFailed, OutcomeTimeout, OutcomeBusy}
	// errorKinds are the reasons of corral_vision_errors_total.
	errorKinds = []string{"bad_input", "engine", "panic", "timeout", "busy", "reply"}
)

// Metrics measure a vision worker. A nil *Metrics measures nothing.
type Metrics struct {
	requests *prometheus.CounterVec
	errors   *prometheus.CounterVec
	duration *prometheus.HistogramVec
	wait     *prometheus.HistogramVec
	inFlight prometheus.Gauge
	waiting  prometheus.Gauge
	slots    prometheus.Gauge
}

// NewMetrics registers a worker's metrics with reg: every op and outcome from zero.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_vision_requests_total",
			Help: "Vision requests this worker answered, by operation and outcome (ok, bad_input, failed, timeout, busy)."},
			[]string{"op", "outcome"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_vision_errors_total",
			Help: "Vision requests that did not succeed, by operation and reason (bad_input, engine, panic, timeout, busy, reply)."},
			[]string{"op", "reason"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "corral_vision_request_duration_seconds",
			Help:    "Time the engine took on a request, by operation (waiting for a slot not included).",
			Buckets: []float64{.005, .01, .025, .05, .1, .15, .25, .5, 1, 1.5, 2.5, 5, 10, 20, 30}}, []string{"op"}),
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "corral_vision_queue_wait_seconds",
			Help:    "Time a request waited for one of the worker's slots (--parallel), by operation.",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 20}}, []string{"op"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_vision_in_flight",
			Help: "Requests the engine is working on now (at most corral_vision_slots)."}),
		waiting: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_vision_queue",
			Help: "Requests waiting for a free slot of this worker."}),
		slots: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_vision_slots",
			Help: "Requests this worker runs at once (--parallel)."}),
	}
	for _, op := range ops {
		for _, o := range outcomes {
			m.requests.WithLabelValues(op, o)
		}
		for _, r := range errorKinds {
			m.errors.WithLabelValues(op, r)
		}
		m.duration.WithLabelValues(op)
		m.wait.WithLabelValues(op)
	}
	reg.MustRegister(m.requests, m.errors, m.duration, m.wait, m.inFlight, m.waiting, m.slots)
	return m
}
