package mcp_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// The console shows the gateway's own refusal of a second agent task on a device in the
// seed's words ("Agent is already running …", naming the running task), not as a busy device
// whose holder it words ("… is busy: someone is using it").
func TestConsoleShowsTheAgentAlreadyRunningRefusal(t *testing.T) {
	f, serial := agentFarm(t, thinkingLong...)
	id := startDetached(t, sessionClient(f, "seed"), serial, "think long")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.ID == id
	}, "the registry showing the task")

	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{})
	t.Cleanup(g.Close)
	a := mcp.ConsoleCall(t.Context(), g, "run_agent_task", map[string]any{"serial": serial, "goal": "another"})
	if a.OK || a.Busy || a.Denied {
		t.Fatalf("a second agent task: ok %v busy %v denied %v (%s); want a failure shown in its own words", a.OK, a.Busy, a.Denied, a.Message)
	}
	for _, want := range []string{"run_agent_task refused (" + broker.CodeBusy + "): Agent is already running. Please wait or call abort_task first.", "task " + id} {
		if !strings.Contains(a.Message, want) {
			t.Errorf("the console's message %q does not say %q", a.Message, want)
		}
	}
}
