package test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A hub's caller whose call to a site's device is cut off is told that the task goes on at the
// site only if the link is back within 3 s, else its node aborts it. After a silent cut (the
// link drops the packets and closes nothing: a proxy stopped), the node's probes of the
// caller went unanswered, which it took as a busy gateway: the running task ran on to its end
// (succeeded), and a task queued behind a site caller's ran at its turn during the cut. Now a
// probe from across a site's link left unanswered for that grace, while the node's own server
// answers, is its caller gone: the running task is aborted caller_gone, the queued one refused,
// both during the cut.
func TestSilentSiteCutEndsTheHubsCalls(t *testing.T) {
	h := farmtest.StartHub(t, farmtest.HubOptions{Sites: map[string][]string{"site-a": {"n1"}}, PhonesPerNode: 2, Quiet: true})
	site := h.Sites["site-a"]
	hubAgent, siteAgent := h.Client("hub-agent"), site.Client("site-agent")

	// Running: a long sleep from the hub on n1-p1.
	running := farmtest.Go(t, hubAgent, "sleep", args("serial", "n1-p1", "seconds", 60))
	runningID := siteTask(t, site, "n1-p1")
	// Queued: a site caller's sleep on n1-p2, a hub caller's tap waiting behind it.
	siteSleep := farmtest.Go(t, siteAgent, "sleep", args("serial", "n1-p2", "seconds", 5))
	siteTask(t, site, "n1-p2")
	queued := farmtest.Go(t, hubAgent, "tap_xy", args("serial", "n1-p2", "x", 0.5, "y", 0.5, "wait_seconds", 60))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := site.Gateway().Client.Device("n1-p2")
		return len(d.Queue) > 0
	}, "the hub's tap queued behind the site's sleep")

	site.Link.Pause()
	cut := time.Now()
	defer site.Link.Resume()
	var tapID string
	for what, answer := range map[string]<-chan farmtest.Answer{"running sleep": running, "queued tap": queued} {
		text := answerText(t, answer)
		if !strings.Contains(text, "site site-a") {
			t.Errorf("the hub's %s, cut off: %s", what, text)
		}
		if m := taskIDIn.FindStringSubmatch(text); what == "queued tap" && m != nil {
			tapID = m[1]
		} else if what == "queued tap" {
			t.Fatalf("the hub's answer to its queued tap names no task: %s", text)
		}
	}
	if text := answerText(t, siteSleep); !strings.Contains(text, "slept") {
		t.Errorf("the site's own sleep during the cut: %s", text)
	}
	gw := site.Gateway().Client
	var rec broker.TaskResult
	farmtest.Eventually(t, 15*time.Second, func() bool {
		var err error
		rec, err = gw.TaskRecord(t.Context(), runningID)
		return err == nil
	}, "the running sleep's record at the site, during the cut")
	t.Logf("running sleep: %s %s %s after the cut", rec.Outcome, rec.Code, rec.Finished.Sub(cut).Round(time.Millisecond))
	if rec.Outcome != broker.OutcomeAborted || rec.Code != broker.CodeCallerGone {
		t.Errorf("the hub's running sleep, its link silent: %s %s %s; want aborted caller_gone", rec.Outcome, rec.Code, rec.Error)
	}
	// Its caller taken as gone once it has said nothing for the grace: a probe (2 s) or two after.
	if took, bound := rec.Finished.Sub(cut), actors.DefaultCallerGoneAfter+4*actors.DefaultCallerCheckEvery; took >= bound {
		t.Errorf("the hub's running sleep was aborted %s after the cut; want within %s", took.Round(time.Millisecond), bound)
	}
	farmtest.Eventually(t, 15*time.Second, func() bool {
		var err error
		rec, err = gw.TaskRecord(t.Context(), tapID)
		return err == nil
	}, "the queued tap's record at the site, during the cut")
	t.Logf("queued tap: %s %s %s after the cut", rec.Outcome, rec.Code, rec.Finished.Sub(cut).Round(time.Millisecond))
	if rec.Outcome != broker.OutcomeRefused || rec.Code != broker.CodeCallerGone || !rec.Started.IsZero() {
		t.Errorf("the hub's queued tap, its link silent at its turn: %s %s (started %s) %s; want refused caller_gone, nothing run",
			rec.Outcome, rec.Code, rec.Started, rec.Error)
	}
}

// siteTask waits until serial runs a task at site, and says its id.
func siteTask(t *testing.T, site *farmtest.Site, serial string) string {
	t.Helper()
	var id string
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ := site.Gateway().Client.Device(serial)
		if d.Task != nil {
			id = d.Task.ID
		}
		return id != ""
	}, "a task runs on %s at %s", serial, site.Name)
	return id
}

// taskIDIn finds the task id a call's answer names.
var taskIDIn = regexp.MustCompile(`\[task (t_[a-z0-9]+)\]`)

// answerText is a call's answer, or its error.
func answerText(t *testing.T, answer <-chan farmtest.Answer) string {
	t.Helper()
	select {
	case a := <-answer:
		if a.Err != nil {
			return a.Err.Error()
		}
		return farmtest.Text(a.Result)
	case <-time.After(30 * time.Second):
		t.Fatal("no answer within 30 s")
		return ""
	}
}
