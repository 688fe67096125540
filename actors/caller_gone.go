package actors

import (
	"context"
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// A task that waited in a device's queue may outlast its caller: the gateway it came through
// died, or its connection dropped, and no one will read its answer. Run later unseen, a tap or
// an app_uninstall surprises whoever holds the device then, and a caller that retries through
// another gateway gets it done twice. So when its turn comes its caller is asked first
// (Config.CallerListens, on the device's worker: the scheduler never waits for it), and a task
// whose caller is gone does not run: it is refused with caller_gone and the next waiter gets
// the device. A task that starts at once is not asked: its caller sent it a moment ago.

// askCaller is the check to make before t runs: whether its caller is still there, if it
// waited in the queue and its gateway said where to ask.
func (s *Scheduler) askCaller(t *task) func(context.Context, broker.TaskRequest) bool {
	if !t.waited || t.req.Probe == "" {
		return nil
	}
	return s.cfg.CallerListens
}

// callerGone is the answer (and record) of a task whose caller left while it waited.
func callerGone(serial, tool string) broker.TaskResult {
	return broker.TaskResult{Outcome: broker.OutcomeRefused, Code: broker.CodeCallerGone, Error: fmt.Sprintf(
		"device %s: its caller left before it could start (the gateway or connection it came through went away while it waited in the queue); %s did not run. Call again if it is still wanted",
		serial, tool)}
}
