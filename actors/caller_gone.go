package actors

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A task that waited in a device's queue may outlast its caller: the gateway it came through
// died, or its connection dropped, and no one will read its answer. Run later unseen, a tap or
// an app_uninstall surprises whoever holds the device then, and a caller that retries through
// another gateway gets it done twice. So when its turn comes its caller is asked first
// (Config.CallerListens, on the device's worker: the scheduler never waits for it), and a task
// whose caller is gone does not run: it is refused with caller_gone and the next waiter gets
// the device. A task that starts at once is not asked: its caller sent it a moment ago, unless
// its node may just have been silent long enough for the farm to declare it lost
// (Config.MayHaveBeenLost): then it may have waited in NATS all that while, its caller told
// the node was lost, and it is asked as one that waited.

// askCaller is the check to make before t runs: whether its caller is still there, if it
// waited in the queue or came after a silence, and its gateway said where to ask. The question
// carries t's pending start (caller_gone_lost.go), which started ends as the driver gets t.
func (s *Scheduler) askCaller(t *task) (ask func(context.Context, broker.TaskRequest) bool, started func() bool) {
	listens := s.cfg.CallerListens
	switch {
	case !t.waited && !t.afterSilence || t.req.Probe == "":
		return nil, nil
	case t.afterSilence && s.cfg.HeldCallerListens != nil:
		listens = s.cfg.HeldCallerListens
	}
	if listens == nil {
		return nil, nil
	}
	return s.withPendingStart(t, listens)
}

// mayHaveBeenLost says whether a task taken now may be one whose caller was told its node
// was lost.
func (s *Scheduler) mayHaveBeenLost() bool {
	return s.cfg.MayHaveBeenLost != nil && s.cfg.MayHaveBeenLost()
}

// callerGone is the answer (and record) of a task whose caller left while it waited.
func callerGone(serial, tool string) broker.TaskResult {
	return broker.TaskResult{Outcome: broker.OutcomeRefused, Code: broker.CodeCallerGone, Error: fmt.Sprintf(
		"device %s: its caller left before it could start (the gateway or connection it came through went away while it waited in the queue); %s did not run. Call again if it is still wanted",
		serial, tool)}
}

// notStarted records that t did not run, and says why: its caller was gone, as it waited in
// the queue or came after its node's silence, its caller most likely told the node was lost;
// or t ended while its caller was asked (its cause says how), as when the node heard of its
// loss meanwhile, which its caller was most likely told.
func (s *Scheduler) notStarted(t *task, res *broker.TaskResult) {
	t.started = time.Time{} // nothing ran: the record shows no start
	switch {
	case res.Code == broker.CodeNodeLost:
		// Nothing ran: refused, not lost (a task lost may have run), with the code its caller had.
		res.Outcome = broker.OutcomeRefused
		res.Error = fmt.Sprintf(
			"device %s: node %s was declared lost by the farm as this task was about to start (its caller was being asked whether it still waited, and had most likely been told so); %s did not run. Call again if it is still wanted",
			t.req.Serial, s.cfg.Node, t.req.Tool)
		s.cfg.Log.Info("this node heard of its loss as a task's caller was asked whether it still waited; the task does not run",
			"task", t.req.ID, "serial", t.req.Serial, "tool", t.req.Tool, "holder", t.req.Holder.String())
	case res.Code != broker.CodeCallerGone:
		// Aborted or timed out while its caller was asked: its cause says so.
	case !t.afterSilence && !s.mayHaveBeenLost(): // else its node's silence most likely answered its caller
		s.cfg.Log.Info("a task's caller left while it waited in the queue; it does not run", "task", t.req.ID, "serial", t.req.Serial,
			"tool", t.req.Tool, "holder", t.req.Holder.String())
	default:
		res.Error = fmt.Sprintf(
			"device %s: node %s was silent (its process stopped, or its connection to NATS stalled) before this task could start, and its caller had been answered meanwhile (most likely that the node was lost); %s did not run. Call again if it is still wanted",
			t.req.Serial, s.cfg.Node, t.req.Tool)
		s.cfg.Log.Info("a task came or had its turn as this node may just have been declared lost, and its caller was answered already; it does not run",
			"task", t.req.ID, "serial", t.req.Serial, "tool", t.req.Tool, "holder", t.req.Holder.String())
	}
}

// A running task outlives its caller too when its gateway dies (killed: nothing aborts the
// call it was running), and a sleep of an hour would hold the device until its deadline. So
// while tasks that named a probe run, the scheduler asks, every CallerCheckEvery, whether the
// caller of each that has run that long is still there (the same question, on a goroutine of
// its own: the scheduler never waits), and aborts a task whose caller has been gone for
// CallerGoneAfter: caller_gone, its record saying its gateway went away. Not at the first
// answer: a gateway reconnecting to NATS has no subscription for a moment, and must not lose
// its running calls for it. A task that runs a moment is never asked, and one timer serves
// all the node's devices, armed only while such tasks run.

// Defaults of Config.CallerCheckEvery and Config.CallerGoneAfter.
const (
	DefaultCallerCheckEvery = time.Second
	DefaultCallerGoneAfter  = 3 * time.Second
)

// Internal messages of the running tasks' check.
type (
	callersTimer struct{}
	callerAnswer struct {
		serial, id string
		listening  bool
		// asked is when the question was asked, at when answered: a caller that said
		// nothing until the node took it as gone has been gone since it was asked.
		asked, at time.Time
	}
)

// watchCallers arms the check of running tasks' callers for t, if it named a probe and none
// is armed.
func (s *Scheduler) watchCallers(t *task) {
	if s.callersDue || s.cfg.CallerListens == nil || t.req.Probe == "" {
		return
	}
	s.callersDue = true
	self, root := s.self, s.root
	time.AfterFunc(s.cfg.CallerCheckEvery, func() { root.Send(self, callersTimer{}) })
}

// askRunningCallers asks the caller of each running task that has run CallerCheckEvery and is
// not being asked already, and arms the next check while any such task runs.
func (s *Scheduler) askRunningCallers() {
	s.callersDue = false
	now := time.Now()
	for serial, sl := range s.slots {
		t := sl.running
		if t == nil || t.req.Probe == "" {
			continue
		}
		s.watchCallers(t)
		if t.askingCaller || now.Sub(t.started) < s.cfg.CallerCheckEvery {
			continue
		}
		t.askingCaller = true
		listens, ctx, req, self, root := s.cfg.CallerListens, t.ctx, t.req, s.self, s.root
		go func() {
			asked := time.Now()
			listening := listens(ctx, req)
			root.Send(self, callerAnswer{serial: serial, id: req.ID, listening: listening, asked: asked, at: time.Now()})
		}()
	}
}

// callerAnswered takes what a running task's caller answered: the task is aborted once its
// caller has been gone CallerGoneAfter, since the question that first found it gone (one left
// unanswered that long, across a site's cut link, at once); an answer from it forgets that it
// was gone.
func (s *Scheduler) callerAnswered(m callerAnswer) {
	sl, ok := s.slots[m.serial]
	if !ok || sl.running == nil || sl.running.req.ID != m.id {
		return // it ended meanwhile
	}
	t := sl.running
	t.askingCaller = false
	if m.listening {
		t.callerGoneSince = time.Time{}
		return
	}
	if t.callerGoneSince.IsZero() {
		// Gone since it was asked, unless this node's own silence held the question (a NATS
		// stall): that says nothing of the caller, who is then gone from the answer on.
		t.callerGoneSince = m.asked
		if s.mayHaveBeenLost() {
			t.callerGoneSince = m.at
		}
	}
	if m.at.Sub(t.callerGoneSince) < s.cfg.CallerGoneAfter {
		return
	}
	gone := m.at.Sub(t.callerGoneSince).Round(100 * time.Millisecond)
	s.cfg.Log.Info("a running task's caller went away; the task is aborted", "task", t.req.ID, "serial", m.serial,
		"tool", t.req.Tool, "holder", t.req.Holder.String(), "gone", gone)
	t.abortedBy = "node " + s.cfg.Node + " (its caller went away)"
	t.cancel(&cause{outcome: broker.OutcomeAborted, code: broker.CodeCallerGone, msg: fmt.Sprintf(
		"device %s: its caller went away while %s ran (the gateway it came through stopped answering for %s: killed, its connection lost, or its site's link cut); the node aborted it to free the device. What it did to the device is unknown: peek before going on",
		m.serial, t.req.Tool, gone)})
}
