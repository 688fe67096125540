package actors

import (
	"time"

	"github.com/corral-farm/corral/broker"
)

// A caller that goes away while its lease request waits (its gateway's context ended) leaves
// nothing held: the gateway withdraws the request by its id (broker.ReleaseRequest.Request).
// A queued request leaves the queue; a lease it was granted, whose answer is on its way to no
// one, is released. The withdrawal may outrun its request (they reach the node on different
// endpoints): the node then remembers it a while and refuses the request when it comes.

const (
	withdrawnFor = time.Minute // how long a withdrawal waits for its request
	maxWithdrawn = 4096        // withdrawals remembered at once
)

// reasonCallerGone is why a lease granted to a withdrawn request ended.
const reasonCallerGone = "its caller went away as it was granted"

// withdraw takes back the lease request req.Request of device sl.
func (s *Scheduler) withdraw(sl *slot, req broker.ReleaseRequest) broker.LeaseAnswer {
	for i, w := range sl.queue {
		if w.acquire != nil && w.acquire.Req.ID == req.Request {
			s.dequeue(sl, i)
			w.acquire.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeWaitExpired, Error: "withdrawn: its caller went away"})
			return broker.LeaseAnswer{V: broker.WireVersion, OK: true}
		}
	}
	if sl.lease != nil && sl.leaseReq == req.Request {
		l := sl.lease.Public()
		s.endLease(sl, "released", reasonCallerGone)
		sl.freed = time.Now()
		s.show(sl)
		s.dispatch(sl)
		return broker.LeaseAnswer{V: broker.WireVersion, OK: true, Lease: &l}
	}
	s.rememberWithdrawn(req.Request)
	return broker.LeaseAnswer{V: broker.WireVersion, OK: true}
}

// rememberWithdrawn keeps a withdrawal whose request has not come (or was answered already).
func (s *Scheduler) rememberWithdrawn(id string) {
	now := time.Now()
	if len(s.withdrawn) >= maxWithdrawn {
		for k, at := range s.withdrawn {
			if now.Sub(at) > withdrawnFor {
				delete(s.withdrawn, k)
			}
		}
		if len(s.withdrawn) >= maxWithdrawn {
			return // a flood of them: a late request's lease then ends at its idle expiry
		}
	}
	s.withdrawn[id] = now
}

// wasWithdrawn says whether the request id was withdrawn before it came, and forgets it.
func (s *Scheduler) wasWithdrawn(id string) bool {
	at, ok := s.withdrawn[id]
	if !ok || id == "" {
		return false
	}
	delete(s.withdrawn, id)
	return time.Since(at) <= withdrawnFor
}
