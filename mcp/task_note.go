package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// taskNote is the note a result ends with to name its task, for get_task_result later.
func taskNote(id string) string {
	if id == "" {
		return ""
	}
	return fmt.Sprintf(" [task %s]", id)
}

// reachedNode says whether a task's answer came from its node, which records every task it
// answers (docs/operations.md: only a node writes records on its subject). An answer the
// gateway's client made itself (unknown device, device offline) has no submission time: no
// node saw the task, no record will ever have its id, so none is handed out.
func reachedNode(res broker.TaskResult) bool {
	return !res.Submitted.IsZero()
}

// lostText explains a task whose node did not answer (lost, gone, unreachable). The node may
// have got it: the task's id is given, with how the caller learns its end later. A caller whose
// own call ended first (Ctrl-C, its --timeout, a closed stream) hears that instead. A node
// declared lost is named by its code, node_lost, as its record will be.
func lostText(task broker.TaskRequest, serial string, err error) string {
	if callerEnded(err) {
		return interruptedText(task, serial, err)
	}
	return fmt.Sprintf("%s on %s%s: %v. If its node got the task, its record tells how it ended once the node is back "+
		"(succeeded or failed if it ended while the node was cut off; lost if the node heard of its loss as it ran; refused, "+
		"nothing run, if it had not started; interrupted if the node restarted, which records no task still waiting in its "+
		"queue): ask get_task_result then.%s", task.Tool, serial, lostWords(err), err, taskNote(task.ID))
}

// callerEnded says whether a task's error is its caller's own context ending rather than its
// node: the farm client ends a request to a node it declared lost with broker.ErrNodeLost, and a
// context error reaches it only through the caller's context.
func callerEnded(err error) bool {
	return !errors.Is(err, broker.ErrNodeLost) &&
		(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// interruptedText explains a task whose caller stopped waiting: the farm client has asked the
// node to abort it, taking it out of the device's queue if it had not started, and the node
// records how it ended.
func interruptedText(task broker.TaskRequest, serial string, err error) string {
	return fmt.Sprintf("%s on %s: the call was interrupted by its caller (%v): the task was withdrawn from the device's "+
		"queue, or aborted if it had started; get_task_result has its record.%s", task.Tool, serial, rootCause(err), taskNote(task.ID))
}

// rootCause is the innermost error of err's chain (context canceled), without the request's
// wording around it.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// noRecordText answers get_task_result for a task with no record and no device running it,
// with what may have become of it: the gateway cannot tell which.
func noRecordText(id string) string {
	return fmt.Sprintf("no record of task %s (not found), and no device shows it running. It may wait in a device's queue "+
		"(its record comes when it ends); its node may have been lost before recording it (a node that comes back "+
		"records the task it was running, as lost, or as interrupted after a restart; a task it never started has no record); "+
		"it may be older than the event stream keeps; or no task has this id (calls refused before reaching a device's "+
		"node have none). Ids come from a result's [task …] note, run_agent_task's answer and get_latest_task.", id)
}

// sitesDownNote adds, for a hub with edge sites cut off, that their tasks' records reach it
// after the heal: a task run at such a site has none here yet. "" when none is cut off.
func sitesDownNote(down []string) string {
	if len(down) == 0 {
		return ""
	}
	return fmt.Sprintf(" The link to site %s is down: a task run there has its record here once the link is back, "+
		"and at that site's gateway meanwhile.", strings.Join(down, ", "))
}

// orphanText answers get_task_result for a task the registry last showed running on a device
// now offline: its node was lost or stopped, and only that node can tell how the task ended.
func orphanText(id string, d broker.DeviceEntry) string {
	return fmt.Sprintf("no record of task %s yet: it was running %s on %s when the device went offline (%s). Its node %s "+
		"records how it ended when it comes back (lost; interrupted, if it restarted): ask get_task_result again then.",
		id, d.Task.Tool, d.Serial, d.Reason, d.Node)
}

// queuedText answers get_task_result for a task with no record that the registry shows waiting
// in device d's queue, at place: it has not run. A device gone offline with the task still in
// its queue lost its node (a node that stops, or loses the device, answers its waiters and
// empties the queue): the task never started.
func queuedText(id string, d broker.DeviceEntry, place int) string {
	if d.State == broker.StateOffline {
		return fmt.Sprintf("no record of task %s: it %s, and never started. %s: call again if it is still wanted.",
			id, waitedAtLostNode(d, place), lostWaiterRecord(d))
	}
	return fmt.Sprintf("task %s waits in device %s's queue, %s in line of %d; nothing has run yet. Its record comes when "+
		"it ends: ask get_task_result again then (abort_task with its id takes it out of the queue).",
		id, d.Serial, ordinal(place), max(d.Queued, len(d.Queue)))
}
