package actors

import (
	"fmt"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A handle that is not the device's lease is refused with what became of it (actors/README.md
// rule 9): expired, released or revoked, when and why, as its lease event said; or that the
// node never granted it (lately). And who has the device now. The node keeps, per device, the
// latest leases that ended: by the hash of their handle, never the handle. No refusal quotes
// any part of the handle it was sent: it is a secret, and refusals reach records and logs.

// keptEnded is how many ended leases a device remembers.
const keptEnded = 32

// endedLease is what a device remembers of a lease that ended.
type endedLease struct {
	hash   string // broker.HandleHash of its handle
	what   string // expired, released or revoked, as its event says
	reason string
	at     time.Time
}

// remember keeps what became of lease l.
func (sl *slot) remember(l *broker.Lease, what, reason string, at time.Time) {
	hash := l.HandleSHA256
	if hash == "" {
		hash = broker.HandleHash(l.Handle)
	}
	if len(sl.ended) == keptEnded {
		sl.ended = append(sl.ended[:0], sl.ended[1:]...)
	}
	sl.ended = append(sl.ended, endedLease{hash: hash, what: what, reason: reason, at: at})
}

// endedOf finds what became of the lease of handle, if the device remembers it.
func (sl *slot) endedOf(handle string) (endedLease, bool) {
	if handle == "" {
		return endedLease{}, false
	}
	hash := broker.HandleHash(handle)
	for i := len(sl.ended) - 1; i >= 0; i-- {
		if sl.ended[i].hash == hash {
			return sl.ended[i], true
		}
	}
	return endedLease{}, false
}

// PastLeases is a Mirror that knows leases which ended outside this scheduler: those the node's
// previous run held when it was killed, which the node revoked as it restarted. A device takes
// them into what it remembers when a refusal first needs them, so that their holder hears what
// became of them rather than that the node does not know the lease.
type PastLeases interface {
	// TakePastLeases returns, once, the leases of serial's device that ended so.
	TakePastLeases(serial string) []PastLease
}

// PastLease is a lease that ended outside the scheduler, known by the hash of its handle.
type PastLease struct {
	HandleSHA256 string
	What, Reason string // as its end event says
	At           time.Time
}

// recallPast takes the device's past leases (PastLeases), older than any that ended here.
func (s *Scheduler) recallPast(sl *slot) {
	p, ok := s.cfg.Mirror.(PastLeases)
	if !ok {
		return
	}
	past := p.TakePastLeases(sl.info.Serial)
	if len(past) == 0 {
		return
	}
	ended := make([]endedLease, 0, len(past)+len(sl.ended))
	for _, l := range past {
		ended = append(ended, endedLease{hash: l.HandleSHA256, what: l.What, reason: l.Reason, at: l.At})
	}
	sl.ended = append(ended, sl.ended...)
	if over := len(sl.ended) - keptEnded; over > 0 {
		sl.ended = sl.ended[over:]
	}
}

// text says what became of the lease: "expired at T (idle for the lease's TTL)".
func (e endedLease) text() string {
	at := stamp(e.at)
	switch {
	case e.what == "released" && e.reason == reasonReleased:
		return "was released by its holder at " + at
	case e.what == "expired":
		return fmt.Sprintf("expired at %s (%s)", at, e.reason)
	}
	return fmt.Sprintf("was %s at %s (%s)", e.what, at, e.reason)
}

// refuseStale refuses a task whose lease handle is not the device's lease: in words for a
// caller of the node, and as fields (LeaseEnded) a gateway words for the lease its caller
// knows, a group's or a selection's, without parsing the words.
func (s *Scheduler) refuseStale(t *task, sl *slot) {
	s.recallPast(sl)
	s.answer(t, broker.TaskResult{Outcome: broker.OutcomeRefused, Code: broker.CodeStaleLease,
		Error: s.staleText(sl, t.req.Lease), LeaseEnded: sl.leaseEnded(t.req.Lease)})
}

// staleFields are the fields of a stale_lease refusal of task t, refused by its words before
// it ran (its lease ended while it waited): what became of its lease, as refuseStale sends
// them, so that a gateway words them for a group's or a selection's lease too. Nil for other
// refusals.
func staleFields(code string, t *task, sl *slot) *broker.LeaseEnded {
	if code != broker.CodeStaleLease || t.req.Lease == "" || sl == nil {
		return nil
	}
	return sl.leaseEnded(t.req.Lease)
}

// leaseEnded is what the device knows of the lease of handle, as staleText says it.
func (sl *slot) leaseEnded(handle string) *broker.LeaseEnded {
	if e, ok := sl.endedOf(handle); ok {
		return &broker.LeaseEnded{What: e.what, Reason: e.reason, At: e.at.UTC(), Now: sl.holderNow()}
	}
	return &broker.LeaseEnded{What: broker.LeaseUnknown, Now: sl.holderNow()}
}

// staleText refuses a task whose lease handle is not the device's lease.
func (s *Scheduler) staleText(sl *slot, handle string) string {
	if e, ok := sl.endedOf(handle); ok {
		return fmt.Sprintf("the lease you passed for %s %s; %s. Call acquire_device again", sl.info.Serial, e.text(), sl.holderNow())
	}
	if sl.lease == nil && sl.running != nil && sl.running.implicit {
		return fmt.Sprintf("%s; %s. %s", s.unknownLease(sl), sl.holderNow(), implicitLeaseHint(sl.info.Serial))
	}
	return fmt.Sprintf("%s; %s. Check the serial and lease you pass (list_leases shows yours), or call acquire_device", s.unknownLease(sl), sl.holderNow())
}

// implicitLeaseHint is what to do about a device busy with a task run without a lease
// (broker.ImplicitLeaseWords).
func implicitLeaseHint(serial string) string {
	return fmt.Sprintf("That task "+broker.ImplicitLeaseWords+": "+
		`get_latest_task {"anyTool": true, "serial": %q} shows it if it is yours, abort_task {"serial": %q} stops it; `+
		"or call acquire_device with wait_seconds to hold the device once it ends", serial, serial)
}

// staleReleaseText refuses a release that is not of the device's lease.
func (s *Scheduler) staleReleaseText(sl *slot, req broker.ReleaseRequest) string {
	s.recallPast(sl) // before the caller reads sl.leaseEnded too
	serial := sl.info.Serial
	if e, ok := sl.endedOf(req.Handle); ok {
		return fmt.Sprintf("the lease you passed for %s %s: nothing to release; %s", serial, e.text(), sl.holderNow())
	}
	switch {
	case sl.lease == nil && (req.Force || req.Handle == ""):
		return fmt.Sprintf("device %s has no lease to release; %s", serial, sl.holderNow())
	case sl.lease == nil:
		return fmt.Sprintf("device %s has no lease to release: %s; %s", serial, s.unknownLease(sl), sl.holderNow())
	case req.Handle == "":
		return fmt.Sprintf("no lease handle given: only the holder of the current lease of %s (or an operator with force) can release it; %s", serial, sl.holderNow())
	}
	return fmt.Sprintf("%s, so it is not the current lease: only its holder (or an operator with force) can release it; %s", s.unknownLease(sl), sl.holderNow())
}

// unknownLease says that the node knows no lease of the device by the handle the caller passed,
// quoting none of it: a handle is a secret, and a refusal goes to logs and records.
func (s *Scheduler) unknownLease(sl *slot) string {
	return fmt.Sprintf("the lease you passed is unknown to node %s for device %s (never granted for it, long ended, or from before the node restarted)",
		s.cfg.Node, sl.info.Serial)
}

// holderNow says who has the device now and until when; never a handle.
func (sl *slot) holderNow() string {
	serial := sl.info.Serial
	switch {
	case sl.lease != nil:
		return fmt.Sprintf("%s is held by %s until %s (at most until %s)", serial, sl.lease.Holder, stamp(sl.lease.ExpiresAt), stamp(sl.lease.MaxUntil))
	case sl.running != nil:
		t := sl.running
		return fmt.Sprintf("%s runs %s for %s without a lease, %s", serial, t.req.Tool, t.req.Holder, t.endsText(time.Now()))
	case sl.health != broker.StateOnline:
		return fmt.Sprintf("%s is %s (%s)", serial, sl.health, sl.reason)
	}
	return serial + " is free now"
}

// stamp is how refusals show a time: UTC, to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
