package model_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// TestMetricsCountRequestsByOutcome checks corral_model_requests_total's outcome for each way a
// request ends, and that each request is timed.
func TestMetricsCountRequestsByOutcome(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := model.NewMetrics(reg)
	srv := sim(t,
		modelsim.Say("hi"),
		modelsim.Fail(http.StatusTooManyRequests, "slow down"),
		modelsim.Fail(http.StatusServiceUnavailable, "loading"),
		modelsim.Fail(http.StatusBadRequest, "no tools"),
		modelsim.Turn{Raw: "<html>nginx</html>"},
		modelsim.Turn{Raw: hugeAnswer()},
		modelsim.Turn{},
		modelsim.Turn{Text: "Tapping", Cut: true},
		modelsim.Turn{Delay: time.Minute},
	)
	c, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), APIKey: model.NewSecret(testKey), Model: "m"}, nil, model.WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	for range 8 {
		_, _ = c.Chat(t.Context(), model.Request{Messages: user("x")})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, _ = c.Chat(ctx, model.Request{Messages: user("x")})

	wrongKey, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), APIKey: model.NewSecret("sk-wrong"), Model: "m"}, nil, model.WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = wrongKey.Chat(t.Context(), model.Request{Messages: user("x")})
	gone := modelsim.New()
	gone.Close()
	nowhere, err := model.NewClient(model.Config{BaseURL: gone.BaseURL(), Model: "m"}, nil, model.WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = nowhere.Chat(t.Context(), model.Request{Messages: user("x")})

	got := gather(t, reg)
	for _, outcome := range []string{"ok", "http_429", "http_5xx", "http_4xx", "malformed", "too_large", "empty", "cut_off", "timeout", "http_401", "unreachable"} {
		if v := got["corral_model_requests_total{outcome="+outcome+"}"]; v != 1 {
			t.Errorf("outcome %s counted %v times, want 1", outcome, v)
		}
	}
	if v, ok := got["corral_model_requests_total{outcome=cancelled}"]; !ok || v != 0 {
		t.Errorf("the cancelled series is %v (present %t), want a zero series", v, ok)
	}
	// ok and empty answered; the other nine failed.
	if ok, failed := got["corral_model_request_seconds_count{result=ok}"], got["corral_model_request_seconds_count{result=error}"]; ok != 2 || failed != 9 {
		t.Errorf("timed %v ok and %v failed requests, want 2 and 9", ok, failed)
	}
}

// TestMetricsTaskGauge checks that TaskStarted counts a task until it ends, and that a nil
// Metrics counts nothing.
func TestMetricsTaskGauge(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := model.NewMetrics(reg)
	end1, end2 := m.TaskStarted(), m.TaskStarted()
	end1()
	if v := gather(t, reg)["corral_agent_tasks_running"]; v != 1 {
		t.Errorf("%v tasks running, want 1", v)
	}
	end2()
	if v := gather(t, reg)["corral_agent_tasks_running"]; v != 0 {
		t.Errorf("%v tasks running, want 0", v)
	}
	var none *model.Metrics
	none.TaskStarted()()
}

// gather reads reg's counters, gauges and histogram counts as "name{label=value}" → value.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			name := mf.GetName()
			if len(labels) > 0 {
				name += "{" + strings.Join(labels, ",") + "}"
			}
			switch mf.GetType() {
			case dto.MetricType_COUNTER:
				out[name] = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				out[name] = m.GetGauge().GetValue()
			case dto.MetricType_HISTOGRAM:
				out[strings.Replace(name, "{", "_count{", 1)] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return out
}
