package actors

import (
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// A task's id shows in its device's registry entry (queue_view.go; the running task's too), to
// gateways, operators and nodes, and so may reach another principal. Under a gateway's auth
// policy only the task's sender or an operator drops a queued task, and only its sender, the
// device's lease holder or an operator aborts a running one (docs/auth.md): the gateway names
// its caller in AbortRequest.Principal, and only the node knows who sent each task at once.
// The gateway checks a running task's holder from the registry too, but the registry lags the
// node by up to a quarter second: a task that has just started is not shown there yet.

// Policy rules an abort of another principal's task breaks.
const (
	ruleQueuedSender  = "only a queued task's sender or an operator aborts it"
	ruleRunningSender = "only a running task's sender, the device's lease holder or an operator aborts it"
)

// queuedOfAnother finds the task req names by id in sl's queue when another principal than
// req.Principal sent it; nil when req holds to no principal or names no such task.
func queuedOfAnother(sl *slot, req broker.AbortRequest) *task {
	if req.Principal == "" || req.TaskID == "" {
		return nil
	}
	for _, w := range sl.queue {
		if w.task != nil && w.task.req.ID == req.TaskID && w.task.req.Holder.Principal != req.Principal {
			return w.task
		}
	}
	return nil
}

// runningOfAnother is sl's running task when req would abort it (by serial or task id) and
// req.Principal may not: it is neither the task's sender nor the holder of the device's lease.
// nil when req holds to no principal (no policy, an operator), names the task by its lease's
// handle (which only the lease's holder was given), or names another task; and for a task
// whose sender and device have no principal (sent where no policy holds: its gateway's rule
// of a held device applies, mcp/abort_holder.go).
func runningOfAnother(sl *slot, req broker.AbortRequest) *task {
	t := sl.running
	if t == nil || req.Principal == "" || req.Lease != "" || req.TaskID != "" && t.req.ID != req.TaskID {
		return nil
	}
	leaseHolder := ""
	if sl.lease != nil {
		leaseHolder = sl.lease.Holder.Principal
	}
	sender := t.req.Holder.Principal
	if sender == req.Principal || leaseHolder == req.Principal || sender == "" && leaseHolder == "" {
		return nil
	}
	return t
}

// refuseQueuedAbort is the answer to an abort of t, queued for sl's device by another
// principal: who sent it, the rule, and what the caller may do instead (SCHEDULER.md rule 9).
func refuseQueuedAbort(req broker.AbortRequest, sl *slot, t *task) broker.AbortAnswer {
	sender := t.req.Holder.Principal
	return broker.AbortAnswer{V: broker.WireVersion, Aborted: []string{}, Code: broker.CodeDenied,
		Error: fmt.Sprintf("denied by policy: principal %q may not abort task %s, which principal %q queued for device %s (rule: %s); "+
			"ask %s or an operator to abort it; it runs when its turn comes (get_task_result {\"taskId\": %q} shows its place)",
			req.Principal, t.req.ID, sender, sl.info.Serial, ruleQueuedSender, sender, t.req.ID)}
}

// refuseRunningAbort is the answer to an abort of t, running on sl's device for another
// principal: who sent it, the rule, and what the caller may do instead.
func refuseRunningAbort(req broker.AbortRequest, sl *slot, t *task) broker.AbortAnswer {
	sender := t.req.Holder.Principal
	if sender == "" {
		sender = sl.lease.Holder.Principal // runningOfAnother: then the lease has one
	}
	return broker.AbortAnswer{V: broker.WireVersion, Aborted: []string{}, Code: broker.CodeDenied,
		Error: fmt.Sprintf("denied by policy: principal %q may not abort task %s, which principal %q runs on device %s (rule: %s); "+
			"ask %s or an operator to abort it, or wait for it (get_task_result {\"taskId\": %q} shows how it ended)",
			req.Principal, t.req.ID, sender, sl.info.Serial, ruleRunningSender, sender, t.req.ID)}
}
