package main

import (
	"context"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// docs/agent.md promises that a later `corral call abort_task '{}'` stops an earlier corral
// call's agent task. The earlier call may still be waiting for it, so its id cannot wait for
// the command's end (keepLatest) to reach NATS: it is kept as the CLI holder's latest (agent)
// task as soon as the task runs on its node. Not before: a task that never reached its node is
// no one's latest (cliFarm).

// startedEvery is how often the registry is read (from the client's cache) for an agent task
// reaching its device: an agent waiting for its model sends no progress.
const startedEvery = 50 * time.Millisecond

// keepWhenStarted returns the progress sink to run req with and what to call once Run returned.
// For a background tool's task (an agent task) it writes the latest entries this command gave
// it to NATS once the task runs on its node: its first progress, or the registry showing it on
// its device; for any other task nothing (keepLatest writes it as the command ends).
func (f *cliFarm) keepWhenStarted(req broker.TaskRequest, progress func(broker.Progress)) (func(broker.Progress), func()) {
	if t, ok := tools.Lookup(req.Tool); !ok || !t.Background {
		return progress, func() {}
	}
	done, progressed := make(chan struct{}), make(chan struct{}, 1)
	go func() {
		tick := time.NewTicker(startedEvery)
		defer tick.Stop()
		for {
			if d, ok := f.Device(req.Serial); ok && d.Task != nil && d.Task.ID == req.ID {
				f.keepStarted(req.ID)
				return
			}
			select {
			case <-done:
				return
			case <-progressed:
				f.keepStarted(req.ID)
				return
			case <-tick.C:
			}
		}
	}()
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
// it to NATS, now: another corral call may look for it at once.
func (f *cliFarm) keepStarted(id string) {
	f.mu.Lock()
	f.reached[id] = true
	var keys []string
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
