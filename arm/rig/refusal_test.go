package rig

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// What a rig refuses is answered as a refusal, by the code the tools give it, with the rig's
// own words: a halted rig or one in alarm cannot move until a person recovers it (unhealthy),
// a key it has not and a point off the screen are the caller's mistakes (bad_input), a
// clipboard helper or readback it has not are unsupported. They were all driver_error,
// failures that count against the rig (CorralToolErrors).
func TestRigRefusalsHaveTheirCodes(t *testing.T) {
	r := startRig(t, 4, true)
	ctx := context.Background()
	refused := func(what string, err error, code, words string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		if got := tools.ErrorCode(err); got != code {
			t.Errorf("%s: %q is %s, want %s", what, err, got, code)
		}
		if !strings.Contains(err.Error(), words) {
			t.Errorf("%s: %q, want it to say %q", what, err, words)
		}
	}
	// What the rig lacks, no clipboard helper or calibration readback, is unsupported, as a
	// platform without the tool is: a refusal, not the driver's failure.
	refused("a clipboard without a helper", r.d.SetClipboard(ctx, "text"), broker.CodeUnsupported, "the rig has no clipboard helper")
	_, err := r.d.Calibrate(ctx, nil)
	refused("calibrating without a readback", err, broker.CodeUnsupported, "the rig has no calibration readback")
	refused("VOLUME_UP", r.d.PressKey(ctx, "VOLUME_UP"), broker.CodeBadInput, "the arm has no such key")
	refused("a tap off the screen", r.d.Tap(ctx, device.Point{X: -1, Y: 10}, 0), broker.CodeBadInput, "outside the calibrated screen")
	refused("a negative hold", r.d.Tap(ctx, device.Point{X: 10, Y: 10}, -time.Second), broker.CodeBadInput, "hold -1s")

	if err := r.d.Halt(ctx, device.Stop{By: "alice", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	before := r.tw.GRBL.Snapshot().Pos
	refused("a tap on a halted rig", r.d.Tap(ctx, device.Point{X: 500, Y: 500}, 0), broker.CodeUnhealthy, "the rig is halted")
	refused("HOME on a halted rig", r.d.PressKey(ctx, "HOME"), broker.CodeUnhealthy, "the rig is halted")
	_, err = r.d.CalibrateWith(ctx, r.tw, r.area(), nil)
	refused("calibrating a halted rig", err, broker.CodeUnhealthy, "calibrate: the rig is halted")
	if after := r.tw.GRBL.Snapshot().Pos; after != before {
		t.Errorf("the halted gantry moved from %v to %v", before, after)
	}
	if err := r.d.Recover(ctx); err != nil {
		t.Fatal(err)
	}

	r.tw.GRBL.InjectAlarm(1) // a hard limit
	waitFor(t, func() bool { return r.d.Gauges()["alarm"] == 1 })
	refused("a tap in alarm", r.d.Tap(ctx, device.Point{X: 500, Y: 500}, 0), broker.CodeUnhealthy, "the arm is in alarm")

	// A lost link is the driver's failure: the rig goes offline.
	r.tw.GRBL.Disconnect()
	waitFor(t, func() bool { return r.d.arm.Err() != nil })
	refused("a tap on a lost link", r.d.Tap(ctx, device.Point{X: 500, Y: 500}, 0), broker.CodeDriver, "link")
}

// area is where the twin's screen roughly lies.
func (r testRig) area() Area {
	lo, hi := r.tw.RoughArea()
	return Area{Min: lo, Max: hi}
}
