package rig

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/nodes/device"
)

// A rig is halted while emergency_stop holds it (Halt, until Recover) or its controller is in
// alarm (a tripped limit, a reset in mid-move): it refuses gestures until a person has looked
// at it and recovered it with arm_recover. The farm shows it unhealthy meanwhile with the
// reason ReportHalt gives, while it still takes arm_recover (actors.HaltReporter).

// alarmReason is why a rig whose controller is in alarm code is unavailable: GRBL's words for
// the alarm, and what to do.
func alarmReason(code int) string {
	return fmt.Sprintf("controller in alarm (%s): when a person has looked at the rig, resume with arm_recover (reset and unlock, the finger up); "+
		"then arm_calibrate if taps land beside their targets", alarmText(code))
}

// haltReason says why the rig is halted, "" when it is not, given the reason last told.
// known is false while the controller's state is unknown (right after a reset, until its
// next report): a reset that leaves it in alarm must not show it recovered in between.
// An alarm told with its code stays so until the alarm ends: the code is forgotten a moment
// before (on $X, GRBL's "Caution: Unlocked").
func (d *Driver) haltReason(last string) (reason string, known bool) {
	if d.arm.Err() != nil {
		// A lost link takes the rig offline instead, its halt kept: it comes back halted, so
		// "" (recovered) would be untrue (the node logged "device recovered from its halt").
		return "", false
	}
	if why := d.halt.Load(); why != nil {
		return *why, true
	}
	switch st := d.arm.Status(); st.State {
	case grbl.StateUnknown:
		return "", false
	case grbl.StateAlarm:
		if st.Alarm == 0 && last != "" && !device.IsStopReason(last) && last != d.uncalibratedReason() { // an alarm's, not a stop's (whoever, whenever)
			return last, true
		}
		return alarmReason(st.Alarm), true
	}
	if d.cal.Load() == nil {
		return d.uncalibratedReason(), true
	}
	return "", true
}

// uncalibratedReason is why a rig without a calibration (recovered from a halt that kept it
// from calibrating) is held: it refuses every gesture, so it is out of free lists and
// acquire_device, while it takes arm_calibrate. It is not a halt to keep: "" is kept instead.
func (d *Driver) uncalibratedReason() string {
	return "not calibrated: " + d.calibrateHint()
}

// toKeep is what keepHalt keeps of reason: not a rig's want of a calibration, no halt.
func (d *Driver) toKeep(reason string) string {
	if reason == d.uncalibratedReason() {
		return ""
	}
	return reason
}

// ReportHalt calls report with why the rig is halted at every change, "" once it is
// recovered, from the controller's events and Halt and Recover, until its controller is
// closed (actors.HaltReporter). Call it once. Each change is kept too (keepHalts), but a lost
// link forgets no halt: the rig comes back halted.
func (d *Driver) ReportHalt(report func(reason string)) {
	events, _ := d.arm.Subscribe(64) // ends when the controller is closed
	go func() {
		last := ""
		for {
			if r, known := d.haltReason(last); known && r != last {
				last = r
				if r != "" || d.arm.Err() == nil {
					d.keepHalt(d.toKeep(r))
				}
				report(r)
			}
			select {
			case _, ok := <-events:
				if !ok {
					return
				}
			case <-d.haltNews:
			}
		}
	}()
}

// haltChanged wakes ReportHalt's watch: Halt or Recover changed the halt.
func (d *Driver) haltChanged() {
	select {
	case d.haltNews <- struct{}{}:
	default: // news pending already
	}
}

// keepHaltTimeout bounds a write of the rig's halt to the farm.
const keepHaltTimeout = 5 * time.Second

// keepHalts keeps the rig's halts in store from now on, and holds the rig halted if store
// kept a halt of it from before (a node restart, a lost link): it moves again only after a
// person has recovered it (arm_recover). Call it before the rig is served.
func (d *Driver) keepHalts(ctx context.Context, store device.HaltStore) error {
	why, err := store.LoadHalt(ctx, d.info.Serial)
	if err != nil {
		return d.wrap("restore halt", err, "the farm's KV must be reachable to tell whether the rig was left halted")
	}
	d.kept = store
	if why != "" {
		d.halt.Store(&why)
		d.log.Warn("rig was halted before its node restarted or its link was lost; held until arm_recover", "reason", why)
	}
	return nil
}

// keepHalt writes why the rig is halted ("" once recovered) where keepHalts keeps it.
func (d *Driver) keepHalt(why string) {
	if d.kept == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), keepHaltTimeout)
	defer cancel()
	if err := d.kept.SaveHalt(ctx, d.info.Serial, why); err != nil {
		d.log.Error("the rig's halt is not kept: a node restart would forget it", "halted", why != "", "err", err)
	}
}
