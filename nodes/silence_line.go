package nodes

import "sync"

// Lease requests of one device are taken in their order of arrival (SCHEDULER.md: queues are
// FIFO). After a silence their callers are asked about at the same time, each on a goroutine
// of its own, and answer in any order: so each request holds its place in its device's line,
// and goes to the scheduler (or is refused) only once those before it have. A device with no
// request being asked has no line, and its requests go at once.

// leaseLine holds, per device, the lease requests not yet handed on, in order of arrival.
type leaseLine struct {
	mu      sync.Mutex
	waiting map[string][]*linePlace
}

// linePlace is one request's place in line: turn, once known, is what its turn does.
type linePlace struct{ turn func() }

// take runs turn now if no request of serial's waits before it, or else when theirs are done.
// turn only sends (to the scheduler, or an answer): it runs under the line's lock.
func (l *leaseLine) take(serial string, turn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.waiting[serial]) == 0 {
		turn()
		return
	}
	l.waiting[serial] = append(l.waiting[serial], &linePlace{turn: turn})
}

// hold gives a request of serial's, whose turn is not known yet (its caller is being asked),
// a place at the end of the line.
func (l *leaseLine) hold(serial string) *linePlace {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.waiting == nil {
		l.waiting = map[string][]*linePlace{}
	}
	p := &linePlace{}
	l.waiting[serial] = append(l.waiting[serial], p)
	return p
}

// decide says what p's turn does, and runs the turns of serial's line that are due: from its
// head, up to the first place still undecided.
func (l *leaseLine) decide(serial string, p *linePlace, turn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p.turn = turn
	line := l.waiting[serial]
	for len(line) > 0 && line[0].turn != nil {
		line[0].turn()
		line = line[1:]
	}
	if len(line) == 0 {
		delete(l.waiting, serial)
		return
	}
	l.waiting[serial] = line
}
