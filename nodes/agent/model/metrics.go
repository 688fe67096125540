package model

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a model request (corral_model_requests_total's outcome label): a fixed set, so
// the series stay few whatever the servers answer.
const (
	OutcomeOK           = "ok"
	OutcomeEmpty        = "empty"    // answered, with neither text nor tool calls
	OutcomeUnauthorized = "http_401" // the key was refused (401 or 403)
	OutcomeRateLimited  = "http_429"
	OutcomeClientError  = "http_4xx" // another 4xx: an unknown model, a request refused
	OutcomeServerError  = "http_5xx"
	OutcomeCutOff       = "cut_off" // the connection or stream ended mid-answer
	OutcomeUnreachable  = "unreachable"
	OutcomeMalformed    = "malformed"
	OutcomeTooLarge     = "too_large"
	OutcomeTimeout      = "timeout"   // the task's deadline passed while waiting
	OutcomeCancelled    = "cancelled" // the task was aborted while waiting
	OutcomeOther        = "other"
)

var outcomes = []string{OutcomeOK, OutcomeEmpty, OutcomeUnauthorized, OutcomeRateLimited, OutcomeClientError,
	OutcomeServerError, OutcomeCutOff, OutcomeUnreachable, OutcomeMalformed, OutcomeTooLarge, OutcomeTimeout,
	OutcomeCancelled, OutcomeOther}

// modelBuckets span a local model's seconds and a slow one's minutes.
var modelBuckets = []float64{.1, .25, .5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300}

// Metrics count a node's model requests, their tokens and agent tasks. A nil *Metrics counts
// nothing.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	tokens   *prometheus.CounterVec
	running  prometheus.Gauge
}

// NewMetrics registers the model's and the agent's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_model_requests_total",
			Help: "Requests to the agent tasks' model, by outcome (ok, http_401, http_429, http_4xx, http_5xx, cut_off, unreachable, malformed, too_large, empty, timeout, cancelled, other)."},
			[]string{"outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "corral_model_request_seconds",
			Help: "Time of a request to the agent tasks' model until its whole answer came (result ok) or it failed (error).", Buckets: modelBuckets},
			[]string{"result"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corral_model_tokens_total",
			Help: "Tokens of the agent tasks' model requests as the model server counted them, by kind (prompt, completion)."},
			[]string{"kind"}),
		running: prometheus.NewGauge(prometheus.GaugeOpts{Name: "corral_agent_tasks_running",
			Help: "Agent tasks (run_agent_task, ai_action) running on this node."}),
	}
	reg.MustRegister(m.requests, m.latency, m.tokens, m.running)
	for _, o := range outcomes {
		m.requests.WithLabelValues(o)
	}
	m.latency.WithLabelValues("ok")
	m.latency.WithLabelValues("error")
	m.tokens.WithLabelValues("prompt")
	m.tokens.WithLabelValues("completion")
	return m
}

// request counts one request that took took and ended with err, and the tokens the server
// said it used (an empty answer's too: they count against the task's budget as well).
func (m *Metrics) request(ctx context.Context, st *answerState, err error, took time.Duration, u Usage) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil && !errors.Is(err, ErrEmptyAnswer) {
		result = "error"
	}
	m.requests.WithLabelValues(outcome(ctx, st, err)).Inc()
	m.latency.WithLabelValues(result).Observe(took.Seconds())
	m.tokens.WithLabelValues("prompt").Add(float64(max(u.PromptTokens, 0)))
	m.tokens.WithLabelValues("completion").Add(float64(max(u.CompletionTokens, 0)))
}

// TaskStarted counts an agent task as running until the returned func is called.
func (m *Metrics) TaskStarted() (ended func()) {
	if m == nil {
		return func() {}
	}
	m.running.Inc()
	return m.running.Dec
}

// outcome names how a request ended.
func outcome(ctx context.Context, st *answerState, err error) string {
	switch {
	case err == nil:
		return OutcomeOK
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return OutcomeTimeout
	case ctx.Err() != nil:
		return OutcomeCancelled
	case errors.Is(err, ErrEmptyAnswer):
		return OutcomeEmpty
	case errors.Is(err, ErrTooLarge):
		return OutcomeTooLarge
	case errors.Is(err, ErrUnauthorized):
		return OutcomeUnauthorized
	case errors.Is(err, ErrRateLimited):
		return OutcomeRateLimited
	case errors.Is(err, ErrModelNotFound), errors.Is(err, ErrBadRequest):
		return OutcomeClientError
	case errors.Is(err, ErrServer) && st.status >= http.StatusInternalServerError:
		return OutcomeServerError
	case errors.Is(err, ErrServer):
		return OutcomeCutOff
	case errors.Is(err, ErrUnreachable):
		return OutcomeUnreachable
	case errors.Is(err, ErrMalformed):
		return OutcomeMalformed
	}
	return OutcomeOther
}
