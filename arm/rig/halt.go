package rig

import (
	"fmt"

	"github.com/corral-farm/corral/arm/grbl"
)

// A rig is halted while emergency_stop holds it (Halt, until Recover) or its controller is in
// alarm (a tripped limit, a reset in mid-move): it refuses gestures until a person has looked
// at it and recovered it with arm_recover. The farm shows it unhealthy meanwhile with the
// reason ReportHalt gives, while it still takes arm_recover (actors.HaltReporter).

// haltReasonStop is why a rig emergency_stop halted is unavailable.
const haltReasonStop = "halted by emergency_stop: when a person has looked at it, resume with arm_recover"

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
	switch {
	case d.arm.Err() != nil:
		return "", true // a lost link takes the rig offline instead
	case d.halted.Load():
		return haltReasonStop, true
	}
	switch st := d.arm.Status(); st.State {
	case grbl.StateUnknown:
		return "", false
	case grbl.StateAlarm:
		if st.Alarm == 0 && last != "" && last != haltReasonStop {
			return last, true
		}
		return alarmReason(st.Alarm), true
	}
	return "", true
}

// ReportHalt calls report with why the rig is halted at every change, "" once it is
// recovered, from the controller's events and Halt and Recover, until its controller is
// closed (actors.HaltReporter). Call it once.
func (d *Driver) ReportHalt(report func(reason string)) {
	events, _ := d.arm.Subscribe(64) // ends when the controller is closed
	go func() {
		last := ""
		for {
			if r, known := d.haltReason(last); known && r != last {
				last = r
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
