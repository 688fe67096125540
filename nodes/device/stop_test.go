package device

import (
	"strings"
	"testing"
	"time"
)

// A stop's reason says who stopped the device and when, and reads back so: a client label
// may hold " at ", a halt moved between node ids ends with where it was halted, and an older
// node's reason (neither who nor when) reads as unknown. An alarm is no stop.
func TestStopReasonReadsBack(t *testing.T) {
	at := time.Date(2026, 12, 5, 16, 22, 18, 0, time.UTC)
	for _, s := range []Stop{
		{By: "alice (claude) session 1a2b3c4d5e", At: at},
		{By: "bob (agent at home)", At: at.In(time.FixedZone("CET", 3600))},
		{},
	} {
		reason := s.Reason()
		if !strings.HasPrefix(reason, "halted by emergency_stop from ") || !strings.HasSuffix(reason, "resume with arm_recover") {
			t.Errorf("%+v reads %q", s, reason)
		}
		for _, r := range []string{reason, reason + " (halted under node n1)"} {
			got, ok := ParseStop(r)
			if !ok || got.By != s.By || !got.At.Equal(s.At) {
				t.Errorf("ParseStop(%q) = %+v %v, want %+v", r, got, ok, s)
			}
		}
	}
	if got := (Stop{}).Reason(); !strings.Contains(got, "from unknown at unknown time") {
		t.Errorf("a stop of unknown caller and time reads %q", got)
	}
	if got := (Stop{By: "alice", At: at}).Reason(); !strings.Contains(got, "from alice at 2026-12-05T16:22:18Z:") {
		t.Errorf("a stop reads %q, want who and when in UTC", got)
	}
	if got, ok := ParseStop(HaltReasonStop); !ok || got != (Stop{}) {
		t.Errorf("an older node's reason reads %+v %v, want a stop of unknown caller and time", got, ok)
	}
	for _, alarm := range []string{"", "controller in alarm (ALARM:1 Hard limit): when a person has looked at the rig, resume with arm_recover", "halted by emergency_stopper"} {
		if _, ok := ParseStop(alarm); ok || IsStopReason(alarm) {
			t.Errorf("%q read as a stop", alarm)
		}
	}
}
