package actors

import (
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// A queued task's id shows in its device's registry entry (queue_view.go), to gateways,
// operators and nodes, and so may reach another principal. Under a gateway's auth policy only
// the task's sender or an operator drops it (docs/auth.md): the gateway names its caller in
// AbortRequest.Principal, and only the node knows who sent each queued task.

// ruleQueuedSender is the policy rule an abort of another principal's queued task breaks.
const ruleQueuedSender = "only a queued task's sender or an operator aborts it"

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

// refuseQueuedAbort is the answer to an abort of t, queued for sl's device by another
// principal: who sent it, the rule, and what the caller may do instead (SCHEDULER.md rule 9).
func refuseQueuedAbort(req broker.AbortRequest, sl *slot, t *task) broker.AbortAnswer {
	sender := t.req.Holder.Principal
	return broker.AbortAnswer{V: broker.WireVersion, Aborted: []string{}, Code: broker.CodeDenied,
		Error: fmt.Sprintf("denied by policy: principal %q may not abort task %s, which principal %q queued for device %s (rule: %s); "+
			"ask %s or an operator to abort it; it runs when its turn comes (get_task_result {\"taskId\": %q} shows its place)",
			req.Principal, t.req.ID, sender, sl.info.Serial, ruleQueuedSender, sender, t.req.ID)}
}
