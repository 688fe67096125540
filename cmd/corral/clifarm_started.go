package main

import (
	"context"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/tools"
)

// docs/agent.md promises that a later `corral call abort_task '{}'` stops an earlier corral
// call's agent task, and docs/clients.md tells a caller whose call lost its connection to ask
// get_latest_task before calling again. The earlier call may still be waiting for its task, so
// the task's id cannot wait for the command's end (keepLatest) to reach NATS: it is kept as the
// CLI holder's latest (agent) task as soon as the task reaches its node. Not before: a task
// that never reached its node is no one's latest (cliFarm). One call per command, so the
// extra write is cheap here; a long-running gateway shows its calls in flight from memory
// (mcp: inFlight) and pays no write per call.

// startedEvery is how often the registry is read (from the client's cache) for a task reaching
// its device: an agent waiting for its model, or a task waiting in the queue, sends no progress.
const startedEvery = 50 * time.Millisecond

// keepWhenStarted returns the progress sink to run req with and what to call once Run returned.
// It writes the latest entries of req's task to NATS once the task is on its node: its first
// progress, or the registry showing it on its device or in its queue. A background tool's
// task (an agent task) has them already (the gateway records it as it starts); any other's
// are the ones its answer will record (mcp.LatestKeys), written now with the running task.
func (f *cliFarm) keepWhenStarted(req broker.TaskRequest, progress func(broker.Progress)) (func(broker.Progress), func()) {
	var keys []string
	t, ok := tools.Lookup(req.Tool)
	background := ok && t.Background
	if !background {
		for _, key := range mcp.LatestKeys(cliHolder(), req.Serial) {
			keys = append(keys, broker.UnderPrincipal(broker.Anonymous, key)) // as the gateway keys the CLI's (cliHolder)
		}
	}
	done, progressed := make(chan struct{}), make(chan struct{}, 1)
	go func() {
		tick := time.NewTicker(startedEvery)
		defer tick.Stop()
		for {
			if d, ok := f.Device(req.Serial); ok && (d.Task != nil && d.Task.ID == req.ID || broker.QueuePlace(d, req.ID) > 0) {
				f.keepStarted(req.ID, keys)
				return
			}
			select {
			case <-done:
				return
			case <-progressed:
				f.keepStarted(req.ID, keys)
				return
			case <-tick.C:
			}
		}
	}()
	if progress == nil && !background {
		// No sink of its own: the registry tells, and a sink would subscribe to the task's
		// progress, which a role that may not (the operator) is refused before the request
		// itself, whose refusal says what the role may not do.
		return nil, func() { close(done) }
	}
	sink := func(p broker.Progress) {
		select {
		case progressed <- struct{}{}:
		default:
		}
		if progress != nil {
			progress(p)
		}
	}
	return sink, func() { close(done) }
}

// keepStartedWait bounds the write of a started task's latest entries.
const keepStartedWait = 5 * time.Second

// keepStarted marks task id as having reached its node and writes the latest entries that name
// it, and keys, to NATS, now: another corral call may look for it at once.
func (f *cliFarm) keepStarted(id string, keys []string) {
	f.mu.Lock()
	f.reached[id] = true
	for key, latest := range f.latest {
		if latest == id {
			keys = append(keys, key)
		}
	}
	f.mu.Unlock()
	for _, key := range keys {
		_ = f.Client.SetLatestTask(context.Background(), key, id) // a task id the gateway made: always valid
	}
	if len(keys) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), keepStartedWait)
		defer cancel()
		f.Flush(ctx)
	}
}
