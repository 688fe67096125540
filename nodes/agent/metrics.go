package agent

import "github.com/corral-farm/corral/nodes/agent/model"

// counting is a model that counts its requests in Metrics, where the agent counts its running
// tasks too (corral_agent_tasks_running): model.Client given model.WithMetrics.
type counting interface{ Metrics() *model.Metrics }

// metricsOf is where m counts, nil when it does not.
func metricsOf(m model.Chatter) *model.Metrics {
	if c, ok := m.(counting); ok {
		return c.Metrics()
	}
	return nil
}
