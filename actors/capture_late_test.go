package actors

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// lateScreenDevice is a screenDevice whose Screen ignores its context, as a screenshot drawing
// on a loaded host does, and returns a frame at shot: later than its capture's timeout.
type lateScreenDevice struct{ *screenDevice }

func (d *lateScreenDevice) Screen(_ context.Context, maxWidth int) (ScreenFrame, error) {
	d.looking <- struct{}{}
	<-d.shot
	return ScreenFrame{JPEG: []byte("late"), Width: min(9, maxWidth), Height: 16}, nil
}

// captureLate asks for a capture of d1 within timeout whose late frame goes to the channel it
// returns with the answer's.
func (h *harness) captureLate(timeout time.Duration) (answer chan shot, late chan ScreenFrame) {
	answer, late = make(chan shot, 1), make(chan ScreenFrame, 2)
	h.root.Send(h.sched, CaptureScreen{Serial: "d1", MaxWidth: 360, Timeout: timeout,
		Reply: func(f ScreenFrame, err error) { answer <- shot{f, err} },
		Late:  func(f ScreenFrame) { late <- f }})
	return answer, late
}

// newLateHarness is a node with d1, whose screenshots come at dev.shot whatever their timeout.
func newLateHarness(t *testing.T) (*harness, *lateScreenDevice) {
	dev := &lateScreenDevice{newScreenDevice(false)}
	h, _ := newCallsHarness(t, dev, dev.screenDevice)
	return h, dev
}

// A frame the driver returns after its capture was answered slow is handed to Late, once: on
// a loaded node every look at six watched phones outlasted its timeout and the grace period,
// each frame was thrown away, and the console showed no screen. The device stays healthy.
func TestLateFrameOfASlowCaptureIsHandedOver(t *testing.T) {
	h, dev := newLateHarness(t)
	before := h.unhealthyShown()
	answer, late := h.captureLate(time.Millisecond)
	within(t, dev.looking, "capture")
	if s := within(t, answer, "answer"); !errors.Is(s.err, errCaptureSlow) {
		t.Fatalf("a capture past its timeout and the grace period: %v, want errCaptureSlow", s.err)
	}
	dev.shot <- struct{}{} // the driver returns at last, with a frame
	if f := within(t, late, "the late frame"); string(f.JPEG) != "late" || f.Width != 9 {
		t.Fatalf("late frame %+v", f)
	}
	captureOnceFree(t, h, dev.screenDevice)
	if len(late) != 0 || len(answer) != 0 {
		t.Fatal("a capture answered twice")
	}
	if h.unhealthyShown() != before {
		t.Fatal("a slow capture marked the device unhealthy")
	}
}

// A capture found stuck (a task came and waited as long as it may) still marks the device
// unhealthy and restarts its actor, but the frame its driver returns afterwards is handed to
// Late by the new incarnation, not thrown away.
func TestLateFrameOfAStuckCaptureIsHandedOver(t *testing.T) {
	h, dev := newLateHarness(t)
	answer, late := h.captureLate(0)
	within(t, dev.looking, "capture")
	expect(t, h.submit(broker.TaskRequest{ID: "t", Tool: "noop"}).wait(), broker.OutcomeFailed, broker.CodeUnhealthy)
	if s := within(t, answer, "answer"); !errors.Is(s.err, errDriverStuck) {
		t.Fatalf("a stuck capture: %v", s.err)
	}
	dev.shot <- struct{}{}
	if f := within(t, late, "the late frame"); string(f.JPEG) != "late" {
		t.Fatalf("late frame %+v", f)
	}
	waitOnline(t, h)
	if len(late) != 0 {
		t.Fatal("a late frame handed over twice")
	}
}
