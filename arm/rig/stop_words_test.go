package rig

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// A gesture cut short on purpose (an abort, a deadline, emergency_stop) says it stopped with
// the finger up: it read "M5: waiting for the answer: context canceled (the line may still
// run; …)", which suggested the machine might still move.
func TestCancelledGestureSaysItStopped(t *testing.T) {
	r := startRig(t, 5, true)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.d.Swipe(ctx, device.Point{X: 540, Y: 2000}, device.Point{X: 540, Y: 200}, 20*time.Second, 0)
	}()
	waitFor(t, func() bool { return r.tw.GRBL.Snapshot().FingerDown })
	cancel()
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled swipe: %v, want context.Canceled", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "swipe: stopped mid-gesture, the finger up") || strings.Contains(msg, "may still run") {
		t.Fatalf("cancelled swipe reads %q, want it to say it stopped with the finger up", msg)
	}
}

// A calibration stopped mid-probe (an abort, emergency_stop) says so, not the GRBL line it was
// cut at ("G4P0.100: waiting for the answer: context canceled"), and without the hint for a
// probe the phone did not feel.
func TestStoppedCalibrationSaysItStopped(t *testing.T) {
	r := startRig(t, 6, false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := r.d.CalibrateWith(ctx, r.tw, r.area(), nil)
		done <- err
	}()
	waitFor(t, func() bool { return r.tw.GRBL.Snapshot().FingerDown })
	cancel()
	if err := r.d.Halt(context.Background(), device.Stop{By: "alice", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped calibration: %v, want context.Canceled", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "stopped mid-gesture, the finger up") || strings.Contains(msg, "waiting for the answer") ||
		strings.Contains(msg, "finger reaches the glass") {
		t.Fatalf("stopped calibration reads %q, want it to say it stopped with the finger up", msg)
	}
}
