package actors

import (
	"maps"

	"github.com/corral-farm/corral/broker"
)

// A waiting caller is told its place in the device's queue ("2nd in line, 4 waiting"): the
// registry entry lists the waiters (broker.DeviceEntry.Queue) in the order dispatch would serve
// them if no one else came. Only the node knows that order, weighted turns and all.

// queueView is the entry's Queue and Queued: the ids of the first broker.MaxQueueShown waiters
// in serving order, and how many wait in all. Under a lease its holder's tasks come first, in
// their order; the rest take turns (turns.pick) as they will when the device is free, which a
// copy of the device's turns plays out. One principal's waiters keep their order, so the play
// walks each principal's line rather than picking over the whole queue every turn.
func (sl *slot) queueView() ([]string, int) {
	if len(sl.queue) == 0 {
		return nil, 0
	}
	out := make([]string, 0, min(len(sl.queue), broker.MaxQueueShown))
	type line struct {
		principal string
		at        []int // indexes into sl.queue, in order
	}
	var lines []*line
	byPrincipal := map[string]*line{}
	for i, w := range sl.queue {
		if t := w.task; t != nil && t.req.Lease != "" {
			// A task of the lease holder goes first; one whose lease is gone is refused when its
			// turn comes (dispatch), and takes no turn.
			if sl.lease != nil && t.req.Lease == sl.lease.Handle && len(out) < cap(out) {
				out = append(out, t.req.ID)
			}
			continue
		}
		p := w.principal()
		l := byPrincipal[p]
		if l == nil {
			l = &line{principal: p}
			byPrincipal[p] = l
			lines = append(lines, l)
		}
		l.at = append(l.at, i)
	}
	play := turns{now: sl.turns.now, next: maps.Clone(sl.turns.next)}
	for len(out) < cap(out) {
		var best *line
		bestStart := 0.0
		for _, l := range lines { // pick: the earliest turn, the earliest in the queue on a tie
			if len(l.at) == 0 {
				continue
			}
			if s := play.startOf(l.principal); best == nil || s < bestStart || s == bestStart && l.at[0] < best.at[0] {
				best, bestStart = l, s
			}
		}
		if best == nil {
			break
		}
		w := sl.queue[best.at[0]]
		best.at = best.at[1:]
		play.served(best.principal, w.share().Weight)
		out = append(out, w.shownID())
	}
	return out, len(sl.queue)
}

// shownID is how a waiter shows in the entry's Queue: a task by its id, a lease request by the
// tag of its id (the id withdraws it, a secret of its asker).
func (w *waiter) shownID() string {
	if w.task != nil {
		return w.task.req.ID
	}
	return broker.RequestTag(w.acquire.Req.ID)
}

// queueMoved marks the device's queue, or the turns that order it, as changed: its registry
// entry is shown again before the scheduler's message is done (Receive).
func (s *Scheduler) queueMoved(sl *slot) {
	if !sl.queueMoved {
		s.moved = append(s.moved, sl)
	}
	sl.queueMoved = true
}

// showQueues shows the entries of the devices whose queues moved during a message. A
// device's queue changes in many places (a wait's timer, an abort, a withdrawal, a lease's end,
// dispatch); showing it here covers them all, once each.
func (s *Scheduler) showQueues() {
	for _, sl := range s.moved {
		if sl.queueMoved {
			s.show(sl)
		}
	}
	clear(s.moved)
	s.moved = s.moved[:0]
}
