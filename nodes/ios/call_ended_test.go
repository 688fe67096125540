package ios

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A swipe longer than its call's deadline says that the call's time ran out, not "wda
// http://…: POST /session/:sid/actions: context deadline exceeded" (QA Q13).
func TestGestureLongerThanItsCallSaysTheCallEnded(t *testing.T) {
	_, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	err := d.Swipe(ctx, device.Point{X: 300, Y: 1000}, device.Point{X: 300, Y: 300}, 5*time.Second, 0)
	t.Logf("swipe: %v", err)
	if err == nil || !strings.Contains(err.Error(), "the call's deadline (timeout_ms) passed before WebDriverAgent was done") ||
		!strings.Contains(err.Error(), "longer timeout_ms (a gesture's duration and a few seconds)") {
		t.Errorf("a 5s swipe in a call of 1s: %v; want it to say the call's time ran out", err)
	}
	if err != nil && strings.Contains(err.Error(), "wda http") {
		t.Errorf("%q names WebDriverAgent's address", err)
	}
}

// usbmuxd dying mid-gesture (the simulator killed) is named as get_device_status names it,
// not as WebDriverAgent's EOF on its session's URL (QA Q13 saw `wda http://ios-sim-01:8100: POST
// /session/:sid/actions: Post "http://ios-sim-01:8100/session/24FADEBF-…/actions": EOF; is
// WebDriverAgent running…`).
func TestUsbmuxdDyingMidGestureIsTheCause(t *testing.T) {
	sims, reg := simFarmLaunching(t, 1, false)
	d := ready(t, reg, "ios-sim-01")
	done := make(chan error, 1)
	go func() {
		done <- d.Swipe(t.Context(), device.Point{X: 300, Y: 1000}, device.Point{X: 300, Y: 300}, 10*time.Second, 0)
	}()
	eventually(t, 10*time.Second, func() bool { return d.gestureLeft() > 0 }, "the swipe sent to WebDriverAgent")
	_ = sims.Close() // kill -9 of the simulator: usbmuxd and the phone with it
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the swipe went on after usbmuxd died")
	}
	t.Logf("swipe: %v", err)
	if err == nil || !strings.Contains(err.Error(), "usbmuxd at "+sims.Addr()+" does not answer") {
		t.Errorf("swipe as usbmuxd died: %v; want it to say usbmuxd at %s does not answer", err, sims.Addr())
	}
	if err != nil && (strings.Contains(err.Error(), "/session/") || strings.Contains(err.Error(), "wda http")) {
		t.Errorf("%q names WebDriverAgent's session URL", err)
	}
}
