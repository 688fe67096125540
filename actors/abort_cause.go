package actors

import "github.com/corral-farm/corral/broker"

// platformArm is the platform whose machine emergency_stop halts (nodes/device.PlatformArm).
const platformArm = "arm"

// abortCauseOf is why an abort asked by req stops the tasks of sl: who asked, in words that
// say an emergency_stop was one (req.Halt), and that it holds an arm rig halted.
func abortCauseOf(req broker.AbortRequest, sl *slot) *cause {
	by := req.By
	switch {
	case by == clientCancelled:
		return &cause{outcome: broker.OutcomeAborted, msg: "aborted: its caller stopped waiting (interrupted or timed out, or its stream closed)"}
	case req.Halt:
		if by == "" {
			by = "an operator"
		}
		msg := "stopped by emergency_stop from " + by
		if sl.info.Platform == platformArm {
			msg += ": the rig is halted until arm_recover"
		}
		return &cause{outcome: broker.OutcomeAborted, msg: msg}
	case by == "":
		by = "abort_task"
	}
	return &cause{outcome: broker.OutcomeAborted, msg: "aborted by " + by}
}

// abortedBy is who the record of t, aborted as req asks, names (its aborted_by): whoever asked
// (a holder, principal and client label, or an operator's name: never a token), or t's own
// holder when its caller stopped waiting.
func abortedBy(req broker.AbortRequest, t *task) string {
	switch {
	case req.By == clientCancelled:
		return t.req.Holder.String()
	case req.By != "":
		return req.By
	case req.Halt:
		return "an operator"
	}
	return "abort_task"
}
