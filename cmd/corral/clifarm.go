package main

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/broker"
)

// cliFarm is the farm of the command line's in-process front door: the NATS farm, but
//   - the latest task (and agent task) of its protocol session, which ends with the command,
//     is kept as its holder's, anonymous (corral-cli), the key a gateway gives a client
//     without a session: so get_latest_task and abort_task {} in the next corral call (or
//     through a gateway without a policy, where corral call is that holder) find it;
//   - reading lease groups creates no bucket: without one there is no group (an operator may
//     read the bucket, not create it);
//   - it knows the tasks it sent, so that the command ends only once each has reached its node
//     (a task started without waiting runs on after the command: settle).
type cliFarm struct {
	*broker.Client
	js jetstream.JetStream

	mu       sync.Mutex
	inflight map[string]string // task id → serial, of Run calls not returned
}

func newCLIFarm(c *broker.Client, js jetstream.JetStream) *cliFarm {
	return &cliFarm{Client: c, js: js, inflight: map[string]string{}}
}

// cliHolder is whose latest task the command line's calls are: a gateway's key ("holder:" and
// the holder) for a client without a session, which the CLI is, a new session each command.
func cliHolder() string {
	return "holder:" + broker.Holder{Principal: broker.Anonymous, Client: cliClientName}.String()
}

// cliClientName is the name the corral CLI gives itself as an MCP client.
const cliClientName = "corral-cli"

// asHolder is the key who (a session's, or one derived from it: "agent:session:…") has as
// the CLI holder's.
func asHolder(who string) string {
	if i := strings.Index(who, "session:"); i >= 0 {
		return who[:i] + cliHolder()
	}
	return who
}

func (f *cliFarm) LatestTask(ctx context.Context, who string) (string, bool) {
	return f.Client.LatestTask(ctx, asHolder(who))
}

func (f *cliFarm) SetLatestTask(ctx context.Context, who, taskID string) error {
	return f.Client.SetLatestTask(ctx, asHolder(who), taskID)
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
