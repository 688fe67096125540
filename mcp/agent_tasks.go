package mcp

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/corral-farm/corral/broker"
)

// agentRun is a background task (an agent task) this gateway has sent and not yet had
// answered.
type agentRun struct {
	id, serial, tool string
	who              string // latestOf its caller: the session, or the holder without one
	started          time.Time
	goal             string
	progress         *agentProgress // what its progress told; nil for one this gateway did not send
	// holder is its caller. Without a protocol session, who names the holder without its
	// session (get_latest_task is shared), but abort_task {} stops only the caller's own.
	holder broker.Holder
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

	detachedWait time.Duration // how long a start without waiting is watched (startDetached)
}

func newAgentRuns() *agentRuns {
	return &agentRuns{bySerial: map[string]agentRun{}, detachedWait: defaultDetachedWait}
}

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

// byID is the background task with id on its way through this gateway.
func (a *agentRuns) byID(id string) (agentRun, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.bySerial {
		if r.id == id {
			return r, true
		}
	}
	return agentRun{}, false
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

// agentTaskOf is the key, beside latestOf's, under which the sessions KV keeps the id of the
// latest agent task of who: it outlives this gateway (a restart, or another gateway taking the
// session up), which its in-memory agentRuns do not, and no other tool call moves it.
func agentTaskOf(who string) string { return "agent:" + who }

// rememberAgentTask records a background task as the latest task, and the latest agent task,
// of its caller as it starts, so that get_latest_task and abort_task find it while it runs,
// on any gateway. It returns what puts them back as they were, for a task that did not start
// after all. A failure to record is logged: the task runs all the same.
func (g *Gateway) rememberAgentTask(ctx context.Context, r agentRun) (undo func()) {
	ctx = context.WithoutCancel(ctx) // SetLatestTask only queues the write
	on := latestOn(r.who, r.serial)  // get_latest_task {serial} reads it
	keys := []string{r.who, agentTaskOf(r.who), on, agentTaskOf(on)}
	before := make([]string, len(keys))
	for i, who := range keys {
		before[i], _ = g.farm.LatestTask(ctx, who)
		if err := g.farm.SetLatestTask(ctx, who, r.id); err != nil {
			g.log.Warn("agent task not recorded as the session's latest; get_latest_task and abort_task {} will miss it", "task", r.id, "err", err)
		}
	}
	return func() {
		for i, who := range keys {
			if now, _ := g.farm.LatestTask(ctx, who); now == r.id && before[i] != "" { // not if a later call moved it
				_ = g.farm.SetLatestTask(ctx, who, before[i])
			}
		}
	}
}

// storedAgentTask is who's latest agent task as the sessions KV keeps it, if the registry
// shows it running on a device the caller may use: how a session finds its agent task after a
// gateway restart.
func (g *Gateway) storedAgentTask(ctx context.Context, who string) (agentRun, bool) {
	id, ok := g.farm.LatestTask(ctx, agentTaskOf(who))
	if !ok {
		return agentRun{}, false
	}
	d, ok := g.deviceRunning(ctx, id)
	if !ok || d.State == broker.StateOffline {
		return agentRun{}, false
	}
	return agentRun{id: id, serial: d.Serial, tool: d.Task.Tool, who: who, started: d.Task.Started}, true
}
