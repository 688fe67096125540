package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// unrecordedShown is what get_latest_task shows of the latest task id before its record is
// written: running on its device (runningShown), or waiting in its device's queue, as running
// without a start (the outcome this gateway's own calls in flight have: inFlightShown). Another
// gateway or corral call may have written id as it sent it (cmd/corral: keepWhenStarted), so
// this gateway may know no more of it than the registry does: not its tool while it waits.
func (g *Gateway) unrecordedShown(ctx context.Context, id string) (TaskRecordResult, bool) {
	if out, ok := g.runningShown(ctx, id); ok {
		return out, true
	}
	d, place, ok := g.deviceQueued(ctx, id)
	if !ok || d.State == broker.StateOffline {
		return TaskRecordResult{}, false
	}
	return TaskRecordResult{TaskID: id, Serial: d.Serial, Node: d.Node, Status: "running", Outcome: "running",
		Message: queuedText(id, d, place)}, true
}

// noLatestRecordText is get_latest_task's refusal when the latest task id has no record (err)
// and no device runs it or queues it: its writer may be gone (a gateway or corral call that
// ended while the task was on its way), so the entry is no proof that it runs.
func noLatestRecordText(id string, err error) string {
	if !errors.Is(err, broker.ErrNotFound) {
		return fmt.Sprintf("no record of the latest task, %s: %v", id, err)
	}
	return fmt.Sprintf("the latest task, %s, has no record and no device runs or queues it: it is not running. "+
		"The gateway or corral call that sent it may have ended before its node answered; its node records it when it ends "+
		"(get_task_result {\"taskId\": %q} shows it then), or never if it never started: call again if it is still wanted.", id, id)
}
