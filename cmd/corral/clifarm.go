package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// cliFarm is the farm of the command line's in-process front door: the NATS farm, but
//   - the latest task of its protocol session, which ends with the command, is kept in memory:
//     no one will ask another gateway for it, so it is not written to NATS;
//   - reading lease groups creates no bucket: without one there is no group (an operator may
//     read the bucket, not create it);
//   - it knows the tasks it sent, so that the command ends only once each has reached its node
//     (a task started without waiting runs on after the command: settle).
type cliFarm struct {
	*broker.Client
	js jetstream.JetStream

	mu       sync.Mutex
	latest   map[string]string // who → task id
	inflight map[string]string // task id → serial, of Run calls not returned
}

func newCLIFarm(c *broker.Client, js jetstream.JetStream) *cliFarm {
	return &cliFarm{Client: c, js: js, latest: map[string]string{}, inflight: map[string]string{}}
}

func (f *cliFarm) LatestTask(_ context.Context, who string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id, ok := f.latest[who]
	return id, ok
}

func (f *cliFarm) SetLatestTask(_ context.Context, who, taskID string) error {
	f.mu.Lock()
	f.latest[who] = taskID
	f.mu.Unlock()
	return nil
}

func (f *cliFarm) Run(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
	f.mu.Lock()
	f.inflight[req.ID] = req.Serial
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.inflight, req.ID)
		f.mu.Unlock()
	}()
	return f.Client.Run(ctx, req, progress)
}

// noGroups says whether the farm has no lease groups bucket, so no group.
func (f *cliFarm) noGroups(ctx context.Context) bool {
	_, err := f.js.KeyValue(ctx, broker.LeaseGroupBucket)
	return errors.Is(err, jetstream.ErrBucketNotFound)
}

func (f *cliFarm) LeaseGroups(ctx context.Context) ([]broker.LeaseGroup, error) {
	if f.noGroups(ctx) {
		return nil, nil
	}
	return f.Client.LeaseGroups(ctx)
}

func (f *cliFarm) LeaseGroup(ctx context.Context, handle string) (broker.LeaseGroup, error) {
	if f.noGroups(ctx) {
		return broker.LeaseGroup{}, broker.ErrNotFound
	}
	return f.Client.LeaseGroup(ctx, handle)
}

// settle waits (until ctx ends) until every task still in flight runs on its node or has ended
// there: the registry shows it on its device, or its record is in the stream.
func (f *cliFarm) settle(ctx context.Context) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		f.mu.Lock()
		waiting := make(map[string]string, len(f.inflight))
		for id, serial := range f.inflight {
			waiting[id] = serial
		}
		f.mu.Unlock()
		for id, serial := range waiting {
			if d, ok := f.Device(serial); ok && d.Task != nil && d.Task.ID == id {
				delete(waiting, id)
			} else if _, err := f.TaskRecord(ctx, id); err == nil {
				delete(waiting, id)
			}
		}
		if len(waiting) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
