package steps

import "testing"

// A running agent task's record, as the gateway that sent it shows it, has the seed's status
// (planning, executing) and outcome running: an export says it still runs, not that it left
// no result.
func TestExportAgentTaskStillRunning(t *testing.T) {
	for _, status := range []string{"planning", "executing", "running"} {
		rec := mustRecord(t, `{"taskId": "t-7", "serial": "n1-p1", "tool": "run_agent_task", "status": "`+status+`", "outcome": "running",
			"goal": "think long", "steps": [{"index": 1, "title": "Wait for the model", "status": "running"}]}`)
		_, err := ExportAgentTask(rec)
		want := "task t-7 is still running: export it once it ended (get_task_result shows its status)"
		if err == nil || err.Error() != want {
			t.Errorf("status %s: got %v\nwant %s", status, err, want)
		}
	}
}
