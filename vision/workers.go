package vision

import (
	"slices"
	"sync"
	"time"
)

// workers is what a client knows of the vision workers, by micro id: those that answered it (a
// ping or a request) and those it found hung (they missed a ping while a request waited). While
// one is hung, the client sends its requests to the others' own subjects (DirectSubject) in
// turn, instead of to the queue group, which would hand some to the hung one; a hung one that
// answers a ping again is taken back.
type workers struct {
	mu    sync.Mutex
	known map[string]bool      // answered this client; true: and not found hung since
	hung  map[string]time.Time // when it was found hung
	next  int                  // round robin over the live ones
	// rechecked is when the client last pinged the workers to see whether the hung ones are back.
	rechecked time.Time
	// unnamed is when a request sent to the queue group was last answered by a live worker it
	// moved to while the first send still waited: a worker this client never heard from holds it,
	// hung. It cannot be passed over by name, so the queue group is (zero: none seen).
	unnamed time.Time
}

// unnamedHungFor is how long the queue group is passed over after a worker this client never
// heard from was found hung: it may have been killed, and it answers no ping to say it is back
// (a worker that answers for the first time ends it sooner).
const unnamedHungFor = time.Minute

func newWorkers() *workers {
	return &workers{known: map[string]bool{}, hung: map[string]time.Time{}}
}

// answered records that worker id answered: it is live, hung no more.
func (w *workers) answered(id string) {
	if id == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, seen := w.known[id]; !seen {
		w.unnamed = time.Time{} // it may be the unnamed hung one, back
	}
	w.known[id] = true
	delete(w.hung, id)
}

// markUnnamedHung records that a worker this client never heard from holds a request, hung.
func (w *workers) markUnnamedHung() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.unnamed = time.Now()
}

func (w *workers) anyHungLocked() bool {
	return len(w.hung) > 0 || (!w.unnamed.IsZero() && time.Since(w.unnamed) < unnamedHungFor)
}

// markHung records that these workers missed a ping while a request waited; it returns those
// that were not hung already.
func (w *workers) markHung(ids ...string) (newly []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		if _, was := w.hung[id]; !was {
			newly = append(newly, id)
		}
		w.known[id] = false
		w.hung[id] = time.Now()
	}
	return newly
}

// gone forgets a worker that no longer listens (it stopped; a restarted one has a new id).
func (w *workers) gone(id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.known, id)
	delete(w.hung, id)
}

// isHung says whether id was found hung and has not answered since.
func (w *workers) isHung(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.hung[id]
	return ok
}

// pick returns the worker to send a request to: "" (the queue group) while none is hung, else
// the live ones in turn ("" when none is known live: the queue group is all there is).
func (w *workers) pick() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.anyHungLocked() {
		return ""
	}
	live := w.liveLocked()
	if len(live) == 0 {
		return ""
	}
	w.next++
	return live[w.next%len(live)]
}

// pickAmong returns, in turn, a worker in answered that this client knows live, other than
// exclude ("" when there is none): where a call goes again, never to the worker that has it.
func (w *workers) pickAmong(answered map[string]bool, exclude string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var ids []string
	for id := range answered {
		if id != exclude && w.known[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	slices.Sort(ids)
	w.next++
	return ids[w.next%len(ids)]
}

// hungSilent returns the hung workers that are not in answered.
func (w *workers) hungSilent(answered map[string]bool) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for id := range w.hung {
		if !answered[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// silent returns the workers this client knows (live or hung) that are not in answered: those
// that a ping just found hung, or gone.
func (w *workers) silent(answered map[string]bool) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for id := range w.known {
		if !answered[id] {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// allAnswered says whether every live worker this client knows is in answered.
func (w *workers) allAnswered(answered map[string]bool) bool {
	return len(w.silent(answered)) == 0
}

// recheckDue says whether the hung workers are due a ping to see whether they are back (at most
// every hungCheckEvery), and records that one is sent.
func (w *workers) recheckDue() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.anyHungLocked() || time.Since(w.rechecked) < hungCheckEvery {
		return false
	}
	w.rechecked = time.Now()
	return true
}

func (w *workers) liveLocked() []string {
	var live []string
	for id, ok := range w.known {
		if ok {
			live = append(live, id)
		}
	}
	slices.Sort(live)
	return live
}
