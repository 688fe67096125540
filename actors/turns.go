package actors

import "github.com/corral-farm/corral/broker"

// turns lets principals take turns at a device when several wait for it, weighted by their
// share, while one principal's waiters keep their order. It is start-time fair queueing over
// the device's queue: a principal served at virtual time v may next start at v + 1/weight, and
// one that has not been served lately starts at the device's current virtual time, so it
// neither waits behind another's flood nor saves up credit while away.
type turns struct {
	now  float64            // virtual time of the latest start
	next map[string]float64 // principal → its next start, kept only while later than now
}

// startOf is the virtual time at which principal p may next start.
func (tr *turns) startOf(p string) float64 { return max(tr.next[p], tr.now) }

// served charges p for a start: its next one comes 1/weight later.
func (tr *turns) served(p string, weight float64) {
	if weight <= 0 {
		weight = 1
	}
	start := tr.startOf(p)
	tr.now = start
	if tr.next == nil {
		tr.next = map[string]float64{}
	}
	tr.next[p] = start + 1/weight
	for q, v := range tr.next { // those due now start at now anyway: forget them
		if v <= tr.now {
			delete(tr.next, q)
		}
	}
}

// pick is the index of the waiter to serve next: the first waiter of the principal whose turn
// comes first, the earliest in the queue on a tie.
func (tr *turns) pick(queue []*waiter) int {
	best, bestStart := 0, 0.0
	for i, w := range queue {
		if s := tr.startOf(w.principal()); i == 0 || s < bestStart {
			best, bestStart = i, s
		}
	}
	return best
}

// principal and share name who is waiting and what the policy grants it.
func (w *waiter) principal() string { return w.holder().Principal }

func (w *waiter) holder() broker.Holder {
	if w.task != nil {
		return w.task.req.Holder
	}
	return w.acquire.Req.Holder
}

func (w *waiter) share() broker.Share {
	if w.task != nil {
		return w.task.req.Share
	}
	return w.acquire.Req.Share
}
