package steps

import (
	"strings"
	"testing"
)

// QA Q9 M3: where the agent found no distinctive text after a step it sets no expect rather
// than a generic one ("Navigate up"), and the export says which steps' replay checks nothing;
// a task whose every step ends with an expect gets no such note.
func TestExportNamesUncheckedSteps(t *testing.T) {
	rec := mustRecord(t, `{"taskId": "t-7", "serial": "n1-p1", "tool": "run_agent_task", "status": "succeeded", "outcome": "succeeded",
  "data": {"taskId": "t-7", "goal": "open Wi-Fi", "status": "finished",
    "steps": [{"index": 1, "title": "Open Settings"}, {"index": 2, "title": "Open Wi-Fi"}],
    "actions": [
      {"step": 1, "tool": "tap", "args": {"bbox": [0, 0.292, 0.25, 0.429]}, "expectText": "Wi-Fi"},
      {"step": 2, "tool": "tap", "args": {"bbox": [0, 0.117, 1, 0.196]}}
    ]}}`)
	ex, err := ExportAgentTask(rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Notes) != 1 || !strings.HasPrefix(ex.Notes[0], "the last action of step 2 has no expect: ") {
		t.Errorf("notes %q, want one naming step 2", ex.Notes)
	}
	rec.Data = []byte(strings.Replace(string(rec.Data), `"bbox": [0, 0.117, 1, 0.196]}}`, `"bbox": [0, 0.117, 1, 0.196]}, "expectText": "Use Wi-Fi"}`, 1))
	if ex, err = ExportAgentTask(rec); err != nil || len(ex.Notes) != 0 {
		t.Errorf("every step checked: notes %q, %v", ex.Notes, err)
	}
}
