package rig

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

	if err := r.d.Halt(ctx); err != nil {
		t.Fatal(err)
	}
	if got := h.wait(t, 3); got != haltReasonStop {
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
