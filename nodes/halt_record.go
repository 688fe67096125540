package nodes

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// An emergency_stop runs no task of its own: it aborts the device's tasks and halts its
// machine outside its queue. So that a person finds it where every other call is (the
// device's timeline: corral tasks, get_task_result, the console), its node records it as a
// task of tool emergency_stop, with who asked and when, what it aborted and what became of
// the machine.

// stopTool is the tool whose record an emergency_stop leaves.
const stopTool = "emergency_stop"

// stopData is the structured part of an emergency_stop's record.
type stopData struct {
	StoppedBy string    `json:"stoppedBy"`
	StoppedAt time.Time `json:"stoppedAt"`
	Aborted   []string  `json:"aborted"`
	Halted    bool      `json:"halted"`
}

// stopperOf is who asked for an emergency_stop: its gateway's holder, or an older gateway's
// words for it (By), "unknown" when it sent neither.
func stopperOf(req broker.AbortRequest) broker.Holder {
	switch {
	case req.Holder != nil && req.Holder.Principal != "":
		return *req.Holder
	case strings.TrimSpace(req.By) != "":
		return broker.Holder{Principal: req.By}
	}
	return broker.Holder{Principal: "unknown"}
}

// recordStop records the emergency_stop req made (stop), as answered by a, on the device's
// timeline and returns the record's id; live says its driver was there to halt it.
func (n *Node) recordStop(req broker.AbortRequest, stop device.Stop, a broker.AbortAnswer, live bool) string {
	aborted := a.Aborted
	if aborted == nil {
		aborted = []string{}
	}
	data, _ := json.Marshal(stopData{StoppedBy: stop.By, StoppedAt: stop.At, Aborted: aborted, Halted: a.Halted})
	rec := broker.TaskResult{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: req.Serial, Node: n.cfg.ID, Tool: stopTool,
		Holder: stopperOf(req), Outcome: broker.OutcomeSucceeded, Data: data,
		Submitted: stop.At, Started: stop.At, Finished: time.Now().UTC()}
	head := fmt.Sprintf("stopped by %s at %s: %d task(s) aborted", stop.By, stop.At.Format(time.RFC3339), len(aborted))
	if len(aborted) > 0 {
		head += " (" + strings.Join(aborted, ", ") + ")"
	}
	switch {
	case a.Error != "":
		rec.Outcome, rec.Code, rec.Error = broker.OutcomeFailed, a.Code, head+"; "+a.Error
	case a.Halted && live:
		rec.Text = head + "; its machine is halted until arm_recover"
	case a.Halted:
		rec.Text = head + "; it is offline, so nothing could tell its machine to stop: its halt is kept, and it comes back halted until arm_recover"
	default:
		rec.Text = head + "; it has no machine to halt"
	}
	n.mirror.TaskRecord(rec)
	return rec.ID
}
