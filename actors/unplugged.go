package actors

import (
	"context"
	"errors"
	"time"

	"github.com/corral-farm/corral/broker"
)

// awaitUnplugged ends t, running on sl's device that just went away: it cancels the task and
// gives its op Grace to return what it did as its context ends (an agent task's steps and
// actions so far), which its caller and its record then carry, so that it can be exported.
// The task keeps the slot till then; the device is offline, so its queue is refused and
// nothing else starts on it. The device's actor stops with the device and gives no grace of
// its own: past Grace this timer's empty result answers the task with the removal's cause
// alone. Whichever comes second finds the task gone and is dropped (finished).
func (s *Scheduler) awaitUnplugged(sl *slot, t *task, msg string) {
	t.cancel(&cause{outcome: broker.OutcomeFailed, code: broker.CodeDisconnected, msg: msg})
	serial, id, self, root := sl.info.Serial, t.req.ID, s.self, s.root
	time.AfterFunc(s.cfg.Grace, func() { root.Send(self, taskFinished{serial: serial, id: id, at: time.Now()}) })
}

// abortUnplugged makes t, if it is ending because its device went away (awaitUnplugged), end
// aborted by c instead, saying that it was ending already and why: an abort within Grace is
// answered with the task among those it aborted, as any abort of a running task is, and the
// task's answer and record must not then say it failed as if no abort had come. The first
// abort wins, as the first cancellation of a context does.
func abortUnplugged(t *task, c *cause) {
	var why *cause
	if t.aborted != nil || !errors.As(context.Cause(t.ctx), &why) || why.code != broker.CodeDisconnected {
		return
	}
	t.aborted = &cause{outcome: c.outcome, code: c.code, msg: c.msg + "; it was ending already: " + why.msg}
}

// cause is why t ends early, if it does: an abort that came as it ended for its device gone,
// else its context's cause.
func (t *task) cause() error {
	if t.aborted != nil {
		return t.aborted
	}
	return context.Cause(t.ctx)
}
