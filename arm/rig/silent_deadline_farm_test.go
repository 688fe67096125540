package rig_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A controller that froze less than 3 s before a gesture's deadline held the stop after it
// until 3 s of silence had passed, past the farm's grace (1 s): the answer was "the driver did
// not stop after cancellation; the device is marked unhealthy and its actor restarted". The
// stop after a deadline now waits through half a second of silence at most, and the answer
// says the controller stopped answering.
func TestControllerFrozenJustBeforeTheDeadlineIsTheAnswer(t *testing.T) {
	f, tw := startOnlineFrozenableRig(t)
	const serial = "bench-arm-1"

	// A press of a minute, cut by its deadline of 6 s. The controller freezes 1 s before that
	// deadline, counted from the gesture's first line reaching it (the node's clock started a
	// little earlier): a second of silence at the deadline, two more before the old stop gave up.
	const deadline = 6 * time.Second
	c := f.Client("agent")
	swipe := map[string]any{"serial": serial, "from_x": 0.4, "from_y": 0.5, "to_x": 0.6, "to_y": 0.5,
		"press_duration": 60, "timeout_ms": deadline.Milliseconds()}
	lines := tw.GRBL.Snapshot().Lines
	answer := farmtest.Go(t, c, "swipe", swipe)
	farmtest.Eventually(t, time.Minute, func() bool { return tw.GRBL.Snapshot().Lines > lines }, "the swipe's first line at the controller")
	freeze := time.AfterFunc(deadline-time.Second, func() { tw.GRBL.Stall(time.Hour) })
	defer freeze.Stop()
	res := (<-answer).Get(t)
	text := farmtest.Text(res)
	t.Logf("the swipe whose controller froze just before its deadline answered: %s", text)
	if !res.IsError || strings.Contains(text, "did not stop after cancellation") ||
		!strings.Contains(text, "the controller stopped answering: no status report for") || !strings.Contains(text, "check the controller") {
		t.Fatalf("a swipe whose controller froze just before its deadline answered %q; want it to say the controller stopped answering and what to do, "+
			"not that the driver did not stop", text)
	}
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateUnhealthy && strings.Contains(d.Reason, "the controller stopped answering")
	}, "the rig unhealthy, its controller not answering")

	tw.GRBL.StallUntil(time.Time{})
	farmtest.Eventually(t, time.Minute, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOnline
	}, "the rig online once its controller answers")
	tap := map[string]any{"serial": serial, "bbox": []float64{0.4, 0.4, 0.6, 0.6}}
	farmtest.MustCall(t, c, "tap", tap)
	if tw.GRBL.Snapshot().FingerDown {
		t.Fatal("the finger pressed down at the deadline is still down after a tap on the rig whose controller answered again")
	}
}
