package main

import (
	"errors"
	"strings"
	"testing"
)

// The rig hint (give the holder's handle, or revoke its lease) is for a busy refusal whose
// device a lease holds. The gateway's own "Agent is already running" refusal and a task run
// without a lease are busy too, but no lease holds the rig: they are left as the gateway said
// them. (TestArmCommandsTakeTheHoldersLease sees the hint on a real lease's refusal.)
func TestRigHintOnlyForALeasesBusyRefusal(t *testing.T) {
	const serial = "arm-1"
	hint := "corral release " + serial + " --force"
	empty := ""
	l := holderLease{handle: &empty, file: &empty}
	for _, c := range []struct {
		msg  string
		hint bool
	}{
		{"arm_recover on arm-1 refused (busy): device arm-1 is busy. Held by lab/ci until 2026-12-05T23:40:00Z (in 4m0s), at most until 2026-12-06T00:30:00Z; 0 waiting. Call acquire_device with wait_seconds to queue for it, pass wait_seconds on this call, or use another device.", true},
		{"arm_recover on arm-1 refused (busy): device arm-1 is busy. You hold it (lab/ci, epoch 3, until 2026-12-05T23:40:00Z): pass your lease, the handle acquire_device or select_device gave you, as lease.", true},
		{"run_agent_task refused (busy): Agent is already running. Please wait or call abort_task first. (device arm-1 runs run_agent_task task t-1 since 2026-12-05T23:30:00Z; abort_task {\"taskId\": \"t-1\"} stops it)", false},
		{"arm_recover on arm-1 refused (busy): device arm-1 is busy. Running run_agent_task for lab/ci since 2026-12-05T23:30:00Z, without a lease: the device is free when that task ends, by its deadline 2026-12-05T23:40:00Z (in 4m0s) at the latest; 0 waiting.", false},
		{"arm_recover on arm-1 failed: the rig did not answer", false},
	} {
		got := l.refused(errors.New(c.msg), serial).Error()
		if has := strings.Contains(got, hint); has != c.hint {
			t.Errorf("hint added: %v, want %v, to\n%s\ngot\n%s", has, c.hint, c.msg, got)
		}
		if !strings.HasPrefix(got, c.msg) {
			t.Errorf("the refusal's own words are lost: %s", got)
		}
	}
}
