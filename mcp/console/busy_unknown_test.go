package console

import (
	"net/http"
	"testing"
)

// A busy refusal of a device whose holder neither the registry nor the leases show (yet) is
// shown in the tool's own words, which name the reason, not as "d2 is busy: someone is using
// it". (A holder the console knows is worded for a person: TestAcquireAnswersForAPerson.)
func TestBusyRefusalWithNoKnownHolderKeepsTheToolsWords(t *testing.T) {
	const refusal = "tap_xy on d2 refused (busy): device d2 is busy. Running run_agent_task for bob (agent) since 2026-12-05T23:30:00Z, without a lease: the device is free when that task ends."
	acts := &fakeActions{answer: func(tool string, _ map[string]any) Answer {
		if tool == "tap_xy" {
			return Answer{Busy: true, Message: refusal}
		}
		return Answer{OK: true, Message: tool + " done"}
	}}
	srv, _ := actionsConsole(t, testFarm(), acts) // d2: no holder, no lease, no task
	s := openSession(t, srv, labToken, "/devices/d2")
	status, a := s.act(t, "d2", "tap", `{"x":0.5,"y":0.5}`)
	if status != http.StatusConflict || a.Busy != nil || a.Message != refusal {
		t.Errorf("tap refused busy with no holder known: %d %q busy %+v; want 409 with the tool's own words", status, a.Message, a.Busy)
	}
}
