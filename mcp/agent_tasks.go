package mcp

import (
	"slices"
	"sync"
	"time"
)

// agentRun is a background task (an agent task) this gateway has sent and not yet had
// answered.
type agentRun struct {
	id, serial, tool string
	who              string // latestOf its caller: the session, or the holder without one
	started          time.Time
}

// agentRuns are the background tasks on their way through this gateway, one per device. It is
// what the gateway knows for sure at the moment of a call: an entry is made before the task is
// sent and removed when its node answers, and the node frees the device before it answers, so a
// task that answered never blocks the next one (the registry's entry for the device is written
// later, coalesced) and one on its way always does. A task another gateway sent is refused by
// its node, as busy (refusedAsRunning).
type agentRuns struct {
	mu       sync.Mutex
	bySerial map[string]agentRun
}

func newAgentRuns() *agentRuns { return &agentRuns{bySerial: map[string]agentRun{}} }

// reserve records r as its device's background task, unless the device has one already:
// then it returns that one and false.
func (a *agentRuns) reserve(r agentRun) (agentRun, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if other, ok := a.bySerial[r.serial]; ok {
		return other, false
	}
	a.bySerial[r.serial] = r
	return r, true
}

// end forgets r once its node answered.
func (a *agentRuns) end(r agentRun) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.bySerial[r.serial].id == r.id {
		delete(a.bySerial, r.serial)
	}
}

// of returns the background tasks who (latestOf) has on their way, oldest first.
func (a *agentRuns) of(who string) []agentRun {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []agentRun
	for _, r := range a.bySerial {
		if r.who == who {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(x, y agentRun) int { return x.started.Compare(y.started) })
	return out
}
