package actors

import (
	"context"
	"errors"

	"github.com/corral-farm/corral/broker"
)

// timedOut says whether t's deadline ended it before anything else did: its driver may still be
// returning, but the task ends timed_out (its context's cause comes first, finished), so an
// abort that comes meanwhile aborts nothing and must be answered so (AbortAnswer.TimedOut),
// not with the task among those it aborted. An abort that comes first wins the same way: the
// deadline then finds the context ended and the task ends aborted.
func (t *task) timedOut() bool {
	var why *cause
	return errors.As(context.Cause(t.ctx), &why) && why.outcome == broker.OutcomeTimedOut
}
