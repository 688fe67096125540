package mcp

import (
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// A fresh gateway exports every tool's call count for every outcome and its latency for
// successful calls before any call, so a dashboard's rate() over them has data from the first
// call on (rate needs a sample from before it).
func TestMetricsExistBeforeTheFirstCall(t *testing.T) {
	reg := prometheus.NewRegistry()
	New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(reg), Options{})
	families, err := reg.Gather()
	require.NoError(t, err)

	series := map[string]map[[2]string]bool{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if series[f.GetName()] == nil {
				series[f.GetName()] = map[[2]string]bool{}
			}
			series[f.GetName()][[2]string{labels["tool"], labels["outcome"]}] = true
		}
	}
	for _, d := range catalog() {
		for _, o := range broker.Outcomes {
			key := [2]string{d.tool.Name, o}
			assert.True(t, series["corral_mcp_tool_calls_total"][key], "corral_mcp_tool_calls_total{tool=%q,outcome=%q} missing", d.tool.Name, o)
			assert.Equal(t, o == broker.OutcomeSucceeded, series["corral_mcp_tool_call_duration_seconds"][key],
				"corral_mcp_tool_call_duration_seconds{tool=%q,outcome=%q}: want it only for succeeded", d.tool.Name, o)
		}
	}
}
