package actors

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/corral-farm/corral/broker"
)

// acquire grants a lease now, queues the request, or refuses it as busy.
func (s *Scheduler) acquire(m AcquireLease) {
	if s.wasWithdrawn(m.Req.ID) {
		m.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeWaitExpired, Error: "withdrawn by its caller before it came"})
		return
	}
	sl, ok := s.slots[m.Req.Serial]
	if !ok {
		m.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeUnknownDevice,
			Error: fmt.Sprintf("no device %q on node %s; call list_available_devices", m.Req.Serial, s.cfg.Node)})
		return
	}
	if sl.halt != "" && sl.health != broker.StateOffline {
		m.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeUnhealthy, Error: haltedLeaseText(sl, "is halted")})
		return
	}
	if sl.health != broker.StateOnline {
		code := broker.CodeUnhealthy
		if sl.health == broker.StateOffline {
			code = broker.CodeOffline
		}
		m.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: code,
			Error: fmt.Sprintf("device %s is %s (%s); pick another device", sl.info.Serial, sl.health, sl.reason)})
		return
	}
	if s.drained.on() {
		m.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeDraining, Error: s.drainingText()})
		return
	}
	if sl.lease == nil && sl.idle() && len(sl.queue) == 0 {
		s.grant(sl, &m, 0)
		return
	}
	if m.Req.WaitMS <= 0 {
		m.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeBusy, Lease: sl.holderView(),
			Error: fmt.Sprintf("device %s is busy", sl.info.Serial)})
		return
	}
	if code, msg := s.queueRefusal(sl, m.Req.Holder, m.Req.Share); msg != "" {
		m.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: code, Error: msg})
		return
	}
	s.enqueue(sl, &waiter{acquire: &m}, time.Duration(m.Req.WaitMS)*time.Millisecond)
}

// grant makes m's caller the holder of the device's lease.
func (s *Scheduler) grant(sl *slot, m *AcquireLease, waited time.Duration) {
	now := time.Now()
	ttl, maxLife := s.cfg.LeaseTTL, s.cfg.LeaseMax
	if d := time.Duration(m.Req.TTLMS) * time.Millisecond; d > 0 && d < ttl {
		ttl = d
	}
	if d := time.Duration(m.Req.MaxMS) * time.Millisecond; d > 0 && d < maxLife {
		maxLife = d
	}
	sl.epoch++
	sl.turns.served(m.Req.Holder.Principal, m.Req.Share.Weight)
	handle := broker.NewLeaseHandle()
	// The hash once, here: the mirror publishes the lease (Public) at every call's renewal.
	l := &broker.Lease{V: broker.WireVersion, Handle: handle, HandleSHA256: broker.HandleHash(handle), Serial: sl.info.Serial, Node: s.cfg.Node,
		Holder: m.Req.Holder, Epoch: sl.epoch, AcquiredAt: now, MaxUntil: now.Add(maxLife)}
	l.ExpiresAt = minTime(now.Add(ttl), l.MaxUntil)
	sl.lease, sl.leaseReq, sl.ttl = l, m.Req.ID, ttl
	if w, ok := sl.dev.(LeaseWatcher); ok {
		w.Leased(true)
	}
	s.armLease(sl)
	s.cfg.Metrics.leaseGranted(s.cfg.Node, waited)
	s.cfg.Mirror.Lease(l.Serial, l)
	s.cfg.Mirror.Event(broker.Event{V: broker.WireVersion, Kind: "lease", Serial: l.Serial, Node: s.cfg.Node,
		What: "granted", Holder: l.Holder.String(), Epoch: l.Epoch, At: now, HandleSHA256: l.HandleSHA256})
	s.show(sl)
	answer := *l
	answer.QueueLen = len(sl.queue)
	m.Reply(broker.LeaseAnswer{V: broker.WireVersion, OK: true, Lease: &answer})
}

// renew pushes the lease's expiry to now + its idle TTL (as granted: within the node's), never
// past its maximum.
func (s *Scheduler) renew(sl *slot) {
	l := sl.lease
	l.ExpiresAt = minTime(time.Now().Add(sl.ttl), l.MaxUntil)
	s.cfg.Mirror.Lease(l.Serial, l)
}

// armLease sets a timer for the lease's expiry; the timer re-checks, so renewals need no re-arm.
func (s *Scheduler) armLease(sl *slot) {
	l := sl.lease
	serial, epoch := l.Serial, l.Epoch
	time.AfterFunc(time.Until(l.ExpiresAt), func() { s.root.Send(s.self, leaseTimer{serial: serial, epoch: epoch}) })
}

func (s *Scheduler) leaseTimer(m leaseTimer) {
	sl, ok := s.slots[m.serial]
	if !ok || sl.lease == nil || sl.lease.Epoch != m.epoch {
		return
	}
	now := time.Now()
	if sl.running != nil && !sl.running.implicit && now.Before(sl.lease.MaxUntil) {
		// The holder's task is running: the lease lives until the task ends and renews it.
		time.AfterFunc(s.cfg.LeaseTTL/10+time.Millisecond, func() { s.root.Send(s.self, m) })
		return
	}
	if now.Before(sl.lease.ExpiresAt) {
		s.armLease(sl)
		return
	}
	reason := "idle for the lease's TTL"
	if !now.Before(sl.lease.MaxUntil) {
		reason = "reached the lease's maximum"
		if sl.running != nil {
			sl.running.abortedBy = "node " + s.cfg.Node + " (the lease's maximum)"
			sl.running.cancel(&cause{outcome: broker.OutcomeAborted, msg: "the lease reached its maximum"})
			s.cfg.Metrics.aborted(s.cfg.Node, "lease_max", 1)
		}
	}
	sl.freed = sl.lease.ExpiresAt
	s.endLease(sl, "expired", reason)
	s.show(sl)
	s.dispatch(sl)
}

// reasonReleased is why a lease its holder gave back ended.
const reasonReleased = "released by its holder"

// release gives a lease back, by its holder (handle) or by force.
func (s *Scheduler) release(req broker.ReleaseRequest) broker.LeaseAnswer {
	sl, ok := s.slots[req.Serial]
	if !ok {
		return broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeUnknownDevice,
			Error: fmt.Sprintf("no device %q on node %s", req.Serial, s.cfg.Node)}
	}
	if req.Request != "" {
		return s.withdraw(sl, req)
	}
	if sl.lease == nil || !req.Force && sl.lease.Handle != req.Handle {
		ans := broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeStaleLease, Error: s.staleReleaseText(sl, req)}
		if sl.lease != nil {
			ans.Lease = sl.holderView()
		}
		if req.Handle != "" && !req.Force { // a handle that is not the device's lease: what became of it
			ans.LeaseEnded = sl.leaseEnded(req.Handle)
		}
		return ans
	}
	l := *sl.lease
	what, how := "released", reasonReleased
	if req.Force {
		// An operator takes the device back: the lease is revoked and the holder's running
		// task cancelled, as on a node's loss.
		by := req.By
		if by == "" {
			by = "an operator"
		}
		what, how = "revoked", "forced release by "+by
		if t := sl.running; t != nil && !t.implicit && t.req.Lease == l.Handle {
			t.abortedBy = by
			t.cancel(&cause{outcome: broker.OutcomeAborted, msg: "the lease was revoked (" + how + ")"})
			s.cfg.Metrics.aborted(s.cfg.Node, "revoked", 1)
		}
	}
	s.endLease(sl, what, how)
	sl.freed = time.Now()
	s.show(sl)
	s.dispatch(sl)
	l.Handle = ""
	return broker.LeaseAnswer{V: broker.WireVersion, OK: true, Lease: &l}
}

// endLease drops the device's lease; the holder's queued tasks are refused.
func (s *Scheduler) endLease(sl *slot, what, reason string) {
	l := sl.lease
	if l == nil {
		return
	}
	sl.lease, sl.leaseReq = nil, ""
	now := time.Now()
	sl.remember(l, what, reason, now)
	if w, ok := sl.dev.(LeaseWatcher); ok {
		w.Leased(false)
	}
	handle := l.Handle
	s.failQueue(sl, func(w *waiter) bool { return w.task != nil && w.task.req.Lease == handle },
		broker.OutcomeRefused, broker.CodeStaleLease, fmt.Sprintf("your lease of %s was %s (%s) while this task waited", l.Serial, what, reason))
	s.cfg.Metrics.leaseEnded(s.cfg.Node, what)
	if what == "revoked" { // its holder did not end it and its time was not up: say why
		level := slog.LevelWarn
		if s.stopping { // an operator stopped the node: the revocations are what they asked for
			level = slog.LevelInfo
		}
		s.cfg.Log.Log(context.Background(), level, "lease revoked", "serial", l.Serial, "holder", l.Holder.String(), "reason", reason)
	}
	s.cfg.Mirror.Lease(l.Serial, nil)
	s.cfg.Mirror.Event(broker.Event{V: broker.WireVersion, Kind: "lease", Serial: l.Serial, Node: s.cfg.Node,
		What: what, Reason: reason, Holder: l.Holder.String(), Epoch: l.Epoch, At: now})
}

// leases lists the node's explicit leases with their queue lengths, handles blanked.
func (s *Scheduler) leases() broker.LeasesAnswer {
	out := broker.LeasesAnswer{V: broker.WireVersion, Leases: []broker.Lease{}}
	for _, sl := range s.slots {
		if sl.lease != nil {
			l := sl.lease.Public()
			l.QueueLen = len(sl.queue)
			out.Leases = append(out.Leases, l)
		}
	}
	return out
}

// holderView describes who has the device, for a busy answer: the lease (handle blanked), or
// the running task's implicit lease; with the running task, if any. Nil when nobody has it and
// it is not online (unhealthy, offline): its state, not a holder, is why a wait ended
// (stateText), and an empty lease would read "held by  until 0001-01-01".
func (sl *slot) holderView() *broker.Lease {
	var running *broker.RunningTask
	if t := sl.running; t != nil {
		running = &broker.RunningTask{ID: t.req.ID, Tool: t.req.Tool, Started: t.started, Deadline: t.deadline, Expected: t.expected, Implicit: t.implicit}
	}
	if sl.lease != nil {
		l := sl.lease.Public()
		l.QueueLen, l.Running = len(sl.queue), running
		return &l
	}
	if sl.running != nil {
		t := sl.running
		return &broker.Lease{V: broker.WireVersion, Serial: sl.info.Serial, Node: sl.info.Node, Holder: t.req.Holder,
			Epoch: t.epoch, AcquiredAt: t.started, ExpiresAt: t.deadline, MaxUntil: t.deadline, QueueLen: len(sl.queue),
			Running: running}
	}
	if sl.health != broker.StateOnline {
		return nil
	}
	return &broker.Lease{V: broker.WireVersion, Serial: sl.info.Serial, Node: sl.info.Node, QueueLen: len(sl.queue)}
}

// stateText says, for a waiter whose wait ended, why the device was not handed over when it
// is not online: its state and reason; "" when it is online (its holder says why).
func (sl *slot) stateText() string {
	if sl.health == broker.StateOnline {
		return ""
	}
	until := "until a health check passes"
	if sl.health == broker.StateOffline {
		until = "until it is back"
	}
	return fmt.Sprintf(": it is %s (%s) and takes nothing %s; pick another device, or wait for it to be online again (list_available_devices)",
		sl.health, sl.reason, until)
}

// abort cancels the running task chosen by serial, task id or lease; with All also the queued
// tasks of the same holder. It never waits for the task it aborts.
func (s *Scheduler) abort(req broker.AbortRequest) broker.AbortAnswer {
	out := broker.AbortAnswer{V: broker.WireVersion, Aborted: []string{}}
	for serial, sl := range s.slots {
		if req.Serial != "" && serial != req.Serial || !req.Covers(sl.info.Tags) {
			continue
		}
		if t := queuedOfAnother(sl, req); t != nil {
			return refuseQueuedAbort(req, sl, t) // ids are unique: nothing else was aborted
		}
		if t := runningOfAnother(sl, req); t != nil {
			return refuseRunningAbort(req, sl, t) // by id, as above; by serial, one device
		}
		c := abortCauseOf(req, sl)
		var handle string
		var holder broker.Holder
		n := len(out.Aborted)
		if t := sl.running; t != nil && (req.TaskID == "" || t.req.ID == req.TaskID) && (req.Lease == "" || t.req.Lease == req.Lease) {
			if t.timedOut() {
				out.TimedOut = append(out.TimedOut, t.req.ID)
			} else if !t.abortedAlready() {
				t.abortedBy = abortedBy(req, t)
				t.cancel(c)
				abortUnplugged(t, c)
				out.Aborted = append(out.Aborted, t.req.ID)
			}
			handle, holder = t.req.Lease, t.req.Holder
		}
		if req.Lease != "" {
			handle = req.Lease
		}
		match := func(w *waiter) bool {
			switch {
			case w.task == nil:
				return false
			case req.TaskID != "":
				return w.task.req.ID == req.TaskID
			case !req.All:
				return false
			case handle != "":
				return w.task.req.Lease == handle
			}
			return w.task.req.Lease == "" && w.task.req.Holder == holder
		}
		for _, w := range sl.queue {
			if match(w) {
				w.task.abortedBy = abortedBy(req, w.task)
			}
		}
		out.Aborted = append(out.Aborted, s.failQueue(sl, match, broker.OutcomeAborted, "", c.msg)...)
		s.cfg.Metrics.aborted(s.cfg.Node, abortCause(req.By), len(out.Aborted)-n)
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
