package actors

import (
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
