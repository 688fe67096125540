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

// abortedAlready says whether an abort (or its caller stopping waiting) ended t already, its
// driver still returning: a second abort then aborts nothing, and is not answered with t among
// the tasks it aborted (two abort_task calls both said "Task aborted" of one task). An abort
// that comes as t ends for its device gone is the first (abortUnplugged).
func (t *task) abortedAlready() bool {
	var why *cause
	return t.aborted != nil || errors.As(context.Cause(t.ctx), &why) && why.outcome == broker.OutcomeAborted
}
