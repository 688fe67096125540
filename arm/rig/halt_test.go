package rig

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/nodes/device"
)

// haltReports keeps what a driver reported of its halts.
type haltReports struct {
	mu  sync.Mutex
	got []string
}

func (h *haltReports) report(reason string) {
	h.mu.Lock()
	h.got = append(h.got, reason)
	h.mu.Unlock()
}

func (h *haltReports) all() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.got)
}

// wait waits for the n-th report and returns it.
func (h *haltReports) wait(t *testing.T, n int) string {
	t.Helper()
	waitFor(t, func() bool { return len(h.all()) >= n })
	return h.all()[n-1]
}

// The rig reports its halts as they happen, no gesture needed to find out: an alarm its
// controller raised (with GRBL's words for it and what to do), a Halt, and each recovery.
// A gesture the alarm cut short resets the controller, whose state is unknown for a moment:
// that is not reported as a recovery.
func TestRigReportsItsHalts(t *testing.T) {
	r := startRig(t, 7, true)
	ctx := context.Background()
	var h haltReports
	r.d.ReportHalt(h.report)

	done := make(chan error, 1)
	go func() {
		done <- r.d.Swipe(ctx, device.Point{X: 540, Y: 2000}, device.Point{X: 540, Y: 200}, 20*time.Second, 0)
	}()
	waitFor(t, func() bool { return r.tw.GRBL.Snapshot().FingerDown })
	r.tw.GRBL.InjectAlarm(1) // a hard limit tripped
	alarm := h.wait(t, 1)
	for _, want := range []string{"ALARM:1", "Hard limit", "arm_recover"} {
		if !strings.Contains(alarm, want) {
			t.Errorf("the alarm reported as %q: no %q", alarm, want)
		}
	}
	if err := <-done; err == nil {
		t.Fatal("the swipe went on through the alarm")
	}
	if err := r.d.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.wait(t, 2); got != "" {
		t.Fatalf("after Recover the rig reported %q, want \"\"; all: %q", got, h.all())
	}

	stop := device.Stop{By: "alice (ci)", At: time.Date(2026, 12, 5, 16, 22, 18, 0, time.UTC)}
	if err := r.d.Halt(ctx, stop); err != nil {
		t.Fatal(err)
	}
	if got := h.wait(t, 3); got != stop.Reason() {
		t.Fatalf("after Halt the rig reported %q", got)
	}
	if err := r.d.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.wait(t, 4); got != "" {
		t.Fatalf("after the second Recover the rig reported %q, want \"\"", got)
	}
	if got := h.all(); len(got) != 4 {
		t.Fatalf("reports %q, want the alarm, \"\", the halt, \"\"", got)
	}
}

// An emergency_stop's halt says who stopped the rig and when, and is still an emergency
// stop's to the rig: gestures are refused with those words until arm_recover clears it, and
// once it is cleared the rig does not hold it as if it were an alarm told with its code (a
// controller then locked without a code shows its own alarm, not the stop long recovered).
func TestStopWithWhoAndWhenIsAnEmergencyStop(t *testing.T) {
	r := startRig(t, 8, true)
	ctx := context.Background()
	var h haltReports
	r.d.ReportHalt(h.report)

	stop := device.Stop{By: "alice (ci) session 1a2b3c4d5e", At: time.Date(2026, 12, 5, 16, 22, 18, 0, time.UTC)}
	if err := r.d.Halt(ctx, stop); err != nil {
		t.Fatal(err)
	}
	if got := h.wait(t, 1); got != stop.Reason() {
		t.Fatalf("after Halt the rig reported %q, want %q", got, stop.Reason())
	}
	err := r.d.Tap(ctx, device.Point{X: 500, Y: 500}, 0)
	if !errors.Is(err, ErrHalted) || !strings.Contains(err.Error(), "from alice (ci) session 1a2b3c4d5e at 2026-12-05T16:22:18Z") {
		t.Fatalf("a tap on the stopped rig: %v; want it refused as halted, saying who and when", err)
	}
	if err := r.d.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.wait(t, 2); got != "" {
		t.Fatalf("after arm_recover the rig reported %q, want \"\"", got)
	}
	if err := r.d.Tap(ctx, device.Point{X: 500, Y: 500}, 0); err != nil {
		t.Fatalf("a tap after arm_recover: %v", err)
	}

	// The reason last told was the stop's, and the controller comes up locked in alarm
	// without a code (a brown-out with homing on): that is the controller's alarm now.
	if err := r.d.arm.Send(ctx, "$22=1"); err != nil {
		t.Fatal(err)
	}
	r.tw.GRBL.SpontaneousReset()
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := r.d.arm.WaitFor(wctx, func(st grbl.Status) bool { return st.State == grbl.StateAlarm && st.Alarm == 0 }); err != nil {
		t.Fatalf("the controller not locked in alarm without a code: %v (%+v)", err, r.d.arm.Status())
	}
	if got, _ := r.d.haltReason(stop.Reason()); got != alarmReason(0) {
		t.Errorf("locked after the stop was recovered, the rig says %q; want its alarm %q", got, alarmReason(0))
	}
	told := alarmReason(1)
	if got, _ := r.d.haltReason(told); got != told {
		t.Errorf("an alarm told with its code reads %q while its code is forgotten; want it kept", got)
	}
}
