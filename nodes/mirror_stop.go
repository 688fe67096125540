package nodes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/corral-farm/corral/broker"
)

// stopFlushWait bounds how long a stopping node keeps trying to write what it queued (its
// tasks' records, its devices offline, its down event) while NATS takes no writes (a full
// disk): long enough for a stream leader's election, short of the 30 s a pod is given to stop.
const stopFlushWait = 5 * time.Second

// droppedIDsShown is how many dropped task ids the stop's ERROR line names.
const droppedIDsShown = 10

// flushAtStop writes what is queued as the node stops: again while events wait behind one that
// had to be stored first, and every retryEvery while NATS refuses, until wait is out. What is
// left then is dropped: said in one ERROR line, counted in corral_node_store_writes_dropped_total.
func (m *natsMirror) flushAtStop(wait time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for ctx.Err() == nil {
		pending, failed := m.flush(ctx, true)
		if !pending && !failed {
			return
		}
		if failed {
			select {
			case <-ctx.Done():
			case <-time.After(retryEvery):
			}
		}
	}
	m.dropAtStop(wait)
}

// dropAtStop drops what is still queued when the node has stopped trying.
func (m *natsMirror) dropAtStop(wait time.Duration) {
	m.mu.Lock()
	events, devices, leases := m.events, len(m.devices), len(m.leases)
	m.events, m.devices, m.leases = nil, map[string]broker.DeviceEntry{}, map[string]leaseWrite{}
	m.mu.Unlock()
	if len(events)+devices+leases == 0 {
		return
	}
	var tasks []string
	for _, p := range events {
		if p.own {
			tasks = append(tasks, strings.TrimPrefix(p.subject, broker.Prefix+".events.task."+m.node+"."))
		}
	}
	slices.Sort(tasks)
	shown := tasks[:min(len(tasks), droppedIDsShown)]
	m.health.droppedAtStop(len(events))
	m.log.Error(fmt.Sprintf("the node stops and NATS took no write for %s: its last task records and events are dropped "+
		"(counted in corral_node_store_writes_dropped_total; get_task_result finds no record of those tasks, and the "+
		"farm shows its devices as they were until it declares the node lost); %s", wait, troubleOf(m.health.lastError()).short()),
		"task_records", len(tasks), "tasks", strings.Join(shown, ","), "events", len(events)-len(tasks),
		"registry_entries", devices, "leases", leases, "err", m.health.lastError())
}

// droppedAtStop counts n events and task records dropped as the node stops.
func (h *storeHealth) droppedAtStop(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropped += uint64(n)
}

// lastError is the last write's failure, nil while writes work.
func (h *storeHealth) lastError() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastErr
}
