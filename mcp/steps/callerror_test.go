package steps

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A gateway lost while a step's call runs: the step says once what failed (not mcp-go's
// "failed to send request: failed to send request"), that the call may have run, and how to
// find its task.
func TestRunLostGatewaySaysTheCallMayHaveRun(t *testing.T) {
	f, c, cat := startFarm(t)
	p, err := NewPlan(mustParse(t, "- {method: sleep, params: 30}\n- {method: home}\n"), cat, Options{Serial: "n1-p1"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Report, 1)
	go func() { done <- p.Run(t.Context(), c) }()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		for _, d := range f.Devices() {
			if d.Serial == "n1-p1" && d.Task != nil && d.Task.Tool == "sleep" {
				return true
			}
		}
		return false
	}, "the sleep step never ran on n1-p1")
	f.StopGateway()
	var rep *Report
	select {
	case rep = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run did not end after its gateway went away")
	}
	msg := rep.Steps[0].Error
	for _, want := range []string{"the connection to the gateway failed after the call was sent, before its answer (",
		"sleep may have run", "`corral tasks --serial n1-p1 --tool sleep --limit 1` shows the newest sleep task"} {
		if !strings.Contains(msg, want) {
			t.Errorf("step 1's error\n%s\ndoes not say %q", msg, want)
		}
	}
	if strings.Count(msg, "failed to send request") > 0 || strings.Contains(msg, "transport error") {
		t.Errorf("step 1's error stutters: %s", msg)
	}
	t.Log(msg)
	if rep.Steps[1].Status != Skipped {
		t.Errorf("step 2 %+v", rep.Steps[1])
	}
}

// A gateway that is gone before the call ran nothing, and the step says so.
func TestRunGoneGatewaySaysNothingRan(t *testing.T) {
	f, c, cat := startFarm(t)
	p, err := NewPlan(mustParse(t, "- {method: home}\n"), cat, Options{Serial: "n1-p1"})
	if err != nil {
		t.Fatal(err)
	}
	f.StopGateway()
	msg := p.Run(t.Context(), c).Steps[0].Error
	if !strings.HasPrefix(msg, "the gateway could not be reached (Post ") || !strings.HasSuffix(msg, "): home did not run (is the gateway up?)") ||
		strings.Contains(msg, "failed to send request") {
		t.Errorf("step 1's error: %s", msg)
	}
}
