package main

import (
	"context"
	"errors"
	"maps"
	"slices"
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
//     through a gateway without a policy, where corral call is that holder) find it. It is
//     written to NATS once the task reached its node, as it runs or waits in the device's queue,
//     so that abort_task {} and get_latest_task in another corral call find it while this one
//     still waits (keepWhenStarted), and again as the command ends (keepLatest). A task that never
//     reached its node (an operator's, whose role may not send tasks nor write there) is no
//     one's latest;
//   - reading lease groups creates no bucket: without one there is no group (an operator may
//     read the bucket, not create it);
//   - it knows the tasks it sent, so that the command ends only once each has reached its node
//     (a task started without waiting runs on after the command: settle);
//   - it reads no session entry this command did not write (clisessions.go).
type cliFarm struct {
	*broker.Client
	js jetstream.JetStream

	mu       sync.Mutex
	inflight map[string]string // task id → serial, of Run calls not returned
	last     string            // the id of the last task sent (sentTask)
	latest   map[string]string // key (asHolder) → task id, this command's
	reached  map[string]bool   // task ids that reached their node
	written  map[string]bool   // session keys this command wrote (clisessions.go)
}

func newCLIFarm(c *broker.Client, js jetstream.JetStream) *cliFarm {
	return &cliFarm{Client: c, js: js, inflight: map[string]string{}, latest: map[string]string{}, reached: map[string]bool{},
		written: map[string]bool{}}
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
	f.mu.Lock()
	id, ok := f.latest[asHolder(who)]
	f.mu.Unlock()
	if ok {
		return id, true
	}
	return f.Client.LatestTask(ctx, asHolder(who))
}

func (f *cliFarm) SetLatestTask(_ context.Context, who, taskID string) error {
	f.mu.Lock()
	f.latest[asHolder(who)] = taskID
	f.mu.Unlock()
	return nil
}

// keepLatest writes this command's latest tasks that reached their nodes to NATS, for the
// next command (settle first: it finds which did).
func (f *cliFarm) keepLatest(ctx context.Context) {
	f.mu.Lock()
	keep := map[string]string{}
	for key, id := range f.latest {
		if f.reached[id] {
			keep[key] = id
		}
	}
	f.mu.Unlock()
	if !f.keptOrSaid(ctx, slices.Compact(slices.Sorted(maps.Values(keep)))) {
		return
	}
	for key, id := range keep {
		_ = f.Client.SetLatestTask(ctx, key, id) // a task id the gateway made: always valid
	}
	if len(keep) > 0 {
		f.Flush(ctx)
	}
}

func (f *cliFarm) Run(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
	f.mu.Lock()
	f.inflight[req.ID], f.last = req.Serial, req.ID
	f.mu.Unlock()
	progress, stop := f.keepWhenStarted(req, progress)
	res, err := f.Client.Run(ctx, req, progress)
	stop()
	f.mu.Lock()
	delete(f.inflight, req.ID)
	if err == nil && res.Node != "" && res.Code != broker.CodeUnknownDevice && res.Code != broker.CodeOffline {
		f.reached[req.ID] = true // its node answered
	}
	f.mu.Unlock()
	return res, err
}

// recorded says whether task id's record is in the stream: its node ran it.
func (f *cliFarm) recorded(ctx context.Context, id string) bool {
	_, err := f.TaskRecord(ctx, id)
	return err == nil
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
			if d, ok := f.Device(serial); ok && d.Task != nil && d.Task.ID == id || f.recorded(ctx, id) {
				delete(waiting, id)
				f.mu.Lock()
				f.reached[id] = true
				f.mu.Unlock()
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
