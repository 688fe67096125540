package actors

import (
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
)

// armRig is a fakeDevice of platform arm, whose machine emergency_stop halts.
type armRig struct{ *fakeDevice }

func (d armRig) Info() broker.DeviceEntry {
	e := d.fakeDevice.Info()
	e.Platform = platformArm
	return e
}

// waitRunning waits until dev runs a task.
func waitRunning(t *testing.T, dev *fakeDevice) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !dev.isRunning(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the task never started")
		}
	}
}

// Tasks emergency_stop ends say so, and, on an arm rig, that it stays halted until
// arm_recover: they read "aborted by X", like any abort_task.
func TestEmergencyStopSaysSoInTheTasksItStops(t *testing.T) {
	h := newHarness(t, Config{})
	rig := armRig{&fakeDevice{serial: "d2", release: make(chan struct{})}}
	h.root.Send(h.sched, AddDevice{Device: rig})
	h.shown(broker.StateOnline)

	for _, c := range []struct {
		serial string
		dev    *fakeDevice
		want   string
	}{
		{"d2", rig.fakeDevice, "stopped by emergency_stop from alice (laptop): the rig is halted until arm_recover"},
		{"d1", h.dev, "stopped by emergency_stop from alice (laptop)"},
	} {
		running := h.submit(broker.TaskRequest{ID: "r-" + c.serial, Serial: c.serial, Tool: "block"})
		waitRunning(t, c.dev)
		h.abort(broker.AbortRequest{Serial: c.serial, All: true, Halt: true, By: "alice (laptop)"})
		res := running.wait()
		expect(t, res, broker.OutcomeAborted, "")
		if !strings.HasPrefix(res.Error, c.want+";") || strings.Contains(res.Error, "arm_recover") != (c.serial == "d2") {
			t.Errorf("a task emergency_stop stopped on %s reads %q, want it to start %q", c.serial, res.Error, c.want)
		}
	}
}
