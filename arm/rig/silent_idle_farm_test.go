package rig_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// A controller that froze while the rig sat idle (link_timeout 1m) held the first tap after it
// for its whole deadline ("timed out: deadline of 10s passed; the controller stopped
// answering: …"), though the rig knew no status report had come for seconds; only the later
// callers were refused at once. The first is refused at once now, in the same words
// (TestControllerFrozenIdleShowsUnhealthyAndBack: with no tap, the rig shows it).
func TestFirstTapOnAControllerFrozenIdleIsRefused(t *testing.T) {
	f, tw := startOnlineFrozenableRig(t)
	const serial = "bench-arm-1"

	frozen := time.Now()
	tw.GRBL.Stall(time.Hour)
	// The condition is a duration: the controller silent for longer than the rig's threshold.
	// The rig's own watch shows it unhealthy about a second later, in the same words: the
	// tap finds the silence itself, or is refused for it, at once either way.
	farmtest.Eventually(t, time.Minute, func() bool { return time.Since(frozen) > rig.SilentAfter },
		"the controller silent for longer than %s", rig.SilentAfter)
	if d, _ := f.Gateway().Client.Device(serial); d.State != broker.StateOnline {
		t.Logf("the rig is %s (%s) before the tap: its watch found the silence first", d.State, d.Reason)
	}

	c := f.Client("agent")
	tap := map[string]any{"serial": serial, "bbox": []float64{0.4, 0.4, 0.6, 0.6}, "timeout_ms": 20000}
	res, err := farmtest.TryCall(t, c, "tap", tap)
	if err != nil {
		t.Fatal(err)
	}
	text := farmtest.Text(res)
	t.Logf("the first tap on the controller frozen idle answered: %s", text)
	if !res.IsError || strings.Contains(text, "timed out") || !strings.Contains(text, "the controller stopped answering: no status report since") ||
		!strings.Contains(text, "check the controller") {
		t.Fatalf("the first tap on a controller frozen while idle answered %q; want it refused at once: the controller stopped answering, no status report since …, check the controller", text)
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
	farmtest.MustCall(t, c, "tap", tap)
	if tw.GRBL.Snapshot().FingerDown {
		t.Fatal("the finger is down after a tap on the rig whose controller answered again")
	}
}
