package console

import (
	"cmp"
	"strings"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// An arm rig halted (emergency_stop, or its controller in alarm) is unhealthy with a reason that
// says to resume with arm_recover, and refuses every gesture until a person has looked at it: the
// device page says so in place of its gesture controls, and offers Stop (emergency_stop) always,
// never a Recover: someone must see the rig first (docs/arm.md).

// haltedRig reports whether d is an arm rig held halted until arm_recover. The registry entry
// carries only the halt's reason, which says who stopped it and when if emergency_stop did.
func haltedRig(d broker.DeviceEntry) bool {
	return d.Platform == device.PlatformArm && d.State == broker.StateUnhealthy && strings.Contains(d.Reason, "arm_recover")
}

// stopView is who stopped a halted rig with emergency_stop and when, for the device page to
// say in the browser's time zone: By "unknown" and no At for a halt an older node kept.
type stopView struct {
	By string    `json:"by"`
	At time.Time `json:"at,omitzero"`
}

// stoppedOf is who stopped d and when, nil unless d is a rig emergency_stop halted (a
// controller's alarm halts it too, stopped by no one).
func stoppedOf(d broker.DeviceEntry) *stopView {
	if !haltedRig(d) {
		return nil
	}
	s, ok := device.ParseStop(d.Reason)
	if !ok {
		return nil
	}
	return &stopView{By: cmp.Or(s.By, "unknown"), At: s.At}
}

// pausedText says why the device page offers no gestures (tap, swipe, type, Home, Back) now, ""
// when it does: a halted rig refuses them, and nothing reaches an offline device.
func pausedText(d deviceView) string {
	switch {
	case d.Halted:
		return "Halted (" + d.Reason + "). Gestures are refused until a person has looked at the rig and recovered it: arm_recover, or corral arm recover."
	case d.State == broker.StateOffline:
		why := ""
		if d.Reason != "" {
			why = " (" + d.Reason + ")"
		}
		return "Offline" + why + ": nothing reaches the device until it is back online. The screen shows its last frame."
	}
	return ""
}
