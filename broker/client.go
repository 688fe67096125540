package broker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/internal/jsguard"
)

// recordGrace is how long TaskRecord waits for a record that was just written.
const recordGrace = time.Second

// ErrNodeLost is the cause of a call whose owner node stopped answering.
var ErrNodeLost = errors.New("node lost")

// ErrSiteCutOff is the cause of a call from the hub to a node at an edge site whose link is
// down (client_sites.go). The hub cannot tell it from a lost node, and errors.Is takes it for
// ErrNodeLost too, but the node is not lost: it keeps its leases and runs its tasks.
var ErrSiteCutOff = errors.New("site cut off")

// ClientOptions configure a Client.
type ClientOptions struct {
	Log *slog.Logger
	// Reap makes this client mark the devices of lost nodes offline and revoke their leases in
	// KV. Gateways reap (idempotently, several may); CLI clients do not.
	Reap bool
	// LostAfter overrides LostAfter (tests).
	LostAfter time.Duration
	// GroupSweepEvery and GroupEndedKeep override how often a reaping client looks for ended
	// lease groups and how long it keeps one (tests): set before its sweep starts, which may
	// be at once.
	GroupSweepEvery, GroupEndedKeep time.Duration

	Metrics *ClientMetrics
	// Sites is a hub gateway's watch of its edge sites' links (nil elsewhere): with it, calls to
	// a cut-off site's nodes say so, rather than that the node is lost.
	Sites *SiteWatch
	// RecordAfter is how long Run waits for a task's answer before it also looks for the
	// task's record, in case the answer was lost (client_record.go); DefaultRecordAfter if 0.
	RecordAfter time.Duration
	// ProgressHandOver bounds how long Run waits, once a task's answer came, for the progress
	// sent before it to reach its caller (handedOver); DefaultProgressHandOver if 0.
	ProgressHandOver time.Duration
}

// Client reaches devices over NATS: it routes each request to the device's owner node, knows
// the registry from a KV watch, and notices lost nodes from their heartbeats. It keeps no state
// that a restart would lose.
type Client struct {
	nc     *nats.Conn
	stores *Stores
	log    *slog.Logger
	opts   ClientOptions
	live   *Liveness
	ready  atomic.Bool

	mu      sync.RWMutex
	devices map[string]cachedEntry // by registry key (<node>.<serial>)
	keysOf  map[string][]string    // serial → its registry keys: one, two while a phone moves
	legacy  legacyEntries          // entries under an older Corral's keys (client_legacy.go)

	latest *latestTasks
	groups *leaseGroups // leasegroups_kv.go
	// guard drops what a JetStream consumer delivers on the subjects nodes publish: a fake
	// heartbeat would keep a lost node's leases alive.
	guard *jsguard.Guard
	// calls are the task calls in flight, to look for their records (client_record.go).
	calls *taskCalls
	// answered are the tasks answered lately, whose records may be on the way (record_grace.go).
	answered *recentAnswers

	probe probeListener // where nodes ask whether this client is still there (client_probe.go)
	newer newerSeen     // payloads of a newer wire version, logged once each (wire_version.go)
	// newerBeats are the nodes beating in a newer wire version, which eachNode does not ask
	// (eachnode_newer.go).
	newerBeats newerBeats
	lastBeats  lastBeats // when each node sent its latest beat: a loss's id (loss_id.go)

	// ownLegacy are the one-token session keys it wrote, for FollowLegacySessions.
	ownLegacy ownLegacyWrites
}

type cachedEntry struct {
	DeviceEntry
	revision uint64
	key      string    // its registry key
	since    time.Time // when this client first saw the key, kept across updates
	// legacy: under the serial alone, the key of a Corral from before node-scoped keys.
	legacy bool
	// applied is a lease this client granted or released through its node ahead of the
	// registry (client_leaseview.go); nil when the registry is up to date with it.
	applied *appliedLease
}

// NewClient starts watching the registry and the heartbeats; it stops when ctx ends.
func NewClient(ctx context.Context, nc *nats.Conn, stores *Stores, opts ClientOptions) (*Client, error) {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	c := &Client{nc: nc, stores: stores, log: opts.Log, opts: opts, devices: map[string]cachedEntry{}, keysOf: map[string][]string{},
		legacy: newLegacyEntries(ctx),
		latest: newLatestTasks(stores.Sessions, opts.Log), groups: newLeaseGroups(ctx, stores.JS, opts.Log, opts.GroupSweepEvery, opts.GroupEndedKeep), guard: jsguard.New(opts.Log)}
	c.live = NewLiveness(opts.LostAfter, c.nodeLost)
	c.probe.acrossSite = func(node string) bool { _, ok := opts.Sites.SiteOf(node); return ok } // probe_across_site.go
	sub, err := nc.Subscribe(Heartbeats, c.guard.Msg(func(m *nats.Msg) { c.beat(m.Data) }))
	if err != nil {
		return nil, fmt.Errorf("subscribe to heartbeats: %w", err)
	}
	c.live.caughtUp = func() bool { return caughtUp(nc, sub) }
	c.live.link = linkOf(nc)
	c.live.probe, c.live.log, c.live.reconnect = probeOf(nc), opts.Log, dropperOf(nc)
	if err := c.followDowns(ctx); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	if err := c.followForgotten(ctx); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	// Listening before the first watch: a reconnection between the two must not go unseen.
	reconnected := reconnects(nc)
	w, err := watchAllFor(ctx, nc, stores.Registry) // consumer_delete_allowed.go
	if err != nil {
		nc.RemoveStatusListener(reconnected)
		_ = sub.Unsubscribe()
		return nil, fmt.Errorf("watch the device registry: %w", err)
	}
	go func() {
		<-ctx.Done()
		_ = sub.Unsubscribe()
	}()
	c.calls = newTaskCalls(ctx, nc, c.recordAfter())
	c.answered = newRecentAnswers()
	go c.followRegistry(ctx, w, reconnected)
	c.sweepAtStart(ctx) // an older Corral's groups, left in their bucket (leasegroups_sweep.go)
	go c.live.Run(ctx)
	go c.showLostAtStart(ctx) // the nodes lost before it started (lost_at_start.go)
	go c.latest.run(ctx)
	return c, nil
}

// Ready says whether the registry has been read once and the NATS server answers.
func (c *Client) Ready() error {
	if !c.nc.IsConnected() {
		return fmt.Errorf("not connected to NATS (%s)", c.nc.Status())
	}
	if d, ok := c.live.unanswered(time.Now()); ok {
		return serverNotAnswering(d)
	}
	if !c.ready.Load() {
		return errors.New("device registry not loaded yet")
	}
	return nil
}

// WaitReady waits until the registry has been read once.
func (c *Client) WaitReady(ctx context.Context) error {
	for {
		if c.ready.Load() {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("device registry not loaded: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Devices lists the registry, one entry per serial, sorted by serial. It sorts serials and
// copies each entry once: entries are hundreds of bytes, and a registry may hold 10,000.
func (c *Client) Devices() []DeviceEntry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	best := make(map[string]string, len(c.devices)) // serial → registry key of its entry
	for k, d := range c.devices {
		if c.legacy.superseded(d) {
			continue
		}
		if b, ok := best[d.Serial]; !ok || preferEntry(d, c.devices[b]) {
			best[d.Serial] = k
		}
	}
	serials := slices.Sorted(maps.Keys(best))
	out := make([]DeviceEntry, len(serials))
	now := time.Now()
	for i, s := range serials {
		out[i] = c.devices[best[s]].shown(now)
	}
	return out
}

// Device looks up one device: every device call does, so through the serial's keys rather
// than the whole registry.
func (c *Client) Device(serial string) (DeviceEntry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var best cachedEntry
	found := false
	for _, k := range c.keysOf[serial] {
		if d := c.devices[k]; !c.legacy.superseded(d) && (!found || preferEntry(d, best)) {
			best, found = d, true
		}
	}
	return best.shown(time.Now()), found
}

// unindex forgets that key holds serial's entry; c.mu is held.
func (c *Client) unindex(serial, key string) {
	keys := slices.DeleteFunc(c.keysOf[serial], func(k string) bool { return k == key })
	if len(keys) == 0 {
		delete(c.keysOf, serial)
		return
	}
	c.keysOf[serial] = keys
}

// preferEntry says whether a is the entry to use of a serial that two nodes list (a phone
// moved from one host to another): the one not offline, then the one under a node-scoped key
// (an older Corral's key, the serial alone, was anyone's to write, and its node may have been
// upgraded since), then the one this client saw first. Not the newer by its Updated field,
// which its writer chooses: a node claiming another's device cannot take its calls over while
// the rightful node is alive.
func preferEntry(a, b cachedEntry) bool {
	if (a.State == StateOffline) != (b.State == StateOffline) {
		return b.State == StateOffline
	}
	if a.legacy != b.legacy {
		return b.legacy
	}
	if !a.since.Equal(b.since) {
		return a.since.Before(b.since)
	}
	return a.key < b.key
}

// Nodes lists the nodes alive.
func (c *Client) Nodes() []string { return c.live.Alive() }

// Run sends a task to the device's node and waits for the result, the node's loss, or ctx.
// If ctx ends first (the caller cancelled), the task is aborted on the node. A result whose
// answer was lost is read from the task's record (awaitTask).
func (c *Client) Run(ctx context.Context, req TaskRequest, progress func(Progress)) (TaskResult, error) {
	dev, ok := c.Device(req.Serial)
	if !ok {
		return TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Tool: req.Tool, Outcome: OutcomeRefused, Code: CodeUnknownDevice,
			Error: fmt.Sprintf("no device %q in the registry; call list_available_devices", req.Serial)}, nil
	}
	if dev.State == StateOffline {
		return TaskResult{V: WireVersion, ID: req.ID, Serial: req.Serial, Node: dev.Node, Tool: req.Tool, Outcome: OutcomeRefused, Code: CodeOffline,
			Error: c.offlineWhy(ctx, dev)}, nil
	}
	var sub *nats.Subscription
	if progress != nil {
		// Only the device's node may publish there (PermissionsFor): no other node can feed the
		// caller progress of a task it does not run.
		s, err := c.nc.Subscribe(fmt.Sprintf(ProgressT, dev.Node, req.ID), c.guard.Msg(func(m *nats.Msg) {
			var p Progress
			if json.Unmarshal(m.Data, &p) == nil {
				progress(p)
			}
		}))
		if err == nil {
			sub = s
			defer func() { _ = s.Unsubscribe() }()
		}
	}
	if req.Probe = c.probe.tokenFor(ctx, c.nc, dev.Node); req.Probe != "" { // client_probe.go
		c.probe.waiting(ctx, req.ID)
		defer c.probe.returned(ctx, req.ID)
	}
	var res TaskResult
	err := c.awaitTask(ctx, dev.Node, req, &res)
	if r, ok := refusedUnreached(dev, req, err); ok { // client_sites.go
		return r, nil
	}
	if err == nil {
		c.answered.add(req.ID) // its record follows (PollTaskRecord)
	}
	if wait := cmp.Or(c.opts.ProgressHandOver, DefaultProgressHandOver); err == nil && sub != nil && !handedOver(sub, wait) {
		c.log.Debug("a task's progress was still being handed to its caller when its result came", "task", req.ID,
			"node", dev.Node, "serial", req.Serial, "tool", req.Tool, "waited", wait)
	}
	if err != nil && ctx.Err() != nil && !errors.Is(err, ErrNodeLost) {
		// The caller went away: free the device rather than let the task run on.
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		var ans AbortAnswer
		_ = c.request(actx, dev.Node, EndpointAbort, AbortRequest{V: WireVersion, Serial: req.Serial, TaskID: req.ID, By: "client cancelled"}, &ans)
	}
	return res, err
}

// Acquire asks the device's node for a lease. A caller that goes away (ctx ends) before the
// answer leaves nothing held: its request is withdrawn at the node, which also releases the
// lease if it was granted just as the caller left.
func (c *Client) Acquire(ctx context.Context, req AcquireRequest) (LeaseAnswer, error) {
	var ans LeaseAnswer
	dev, ok := c.Device(req.Serial)
	if !ok {
		return ans, fmt.Errorf("no device %q in the registry; call list_available_devices", req.Serial)
	}
	if err := ctx.Err(); err != nil {
		return ans, fmt.Errorf("acquire %s: the caller went away before asking: %w", req.Serial, err)
	}
	if req.ID == "" {
		req.ID = randomID("acq_", 16)
	}
	if req.Probe = c.probe.tokenFor(ctx, c.nc, dev.Node); req.Probe != "" { // a node back from a silence asks (client_probe.go)
		c.probe.waiting(ctx, AcquireProbeID(req.ID))
		defer c.probe.returned(ctx, AcquireProbeID(req.ID))
	}
	err := c.request(ctx, dev.Node, EndpointAcquire, req, &ans)
	if r := refusedRequest(ctx, err, dev.Node, EndpointAcquire); r != nil {
		// NATS would not carry the request: it never reached the node, so nothing is held and
		// nothing is withdrawn (the release would be refused too, after waiting out its deadline).
		return LeaseAnswer{}, fmt.Errorf("acquire %s: %w", req.Serial, r)
	}
	if ctx.Err() == nil || errors.Is(err, ErrNodeLost) || err == nil && !ans.OK {
		if err == nil && ans.OK && ans.Lease != nil {
			c.applyLease(ans.Lease, ans.Lease.Holder.String())
		}
		return ans, err
	}
	// The caller is gone, whatever came back: a lease now would be held by no one.
	c.withdraw(ctx, dev.Node, req)
	if err == nil {
		err = fmt.Errorf("acquire %s: the caller went away; the lease was given back: %w", req.Serial, ctx.Err())
	}
	return LeaseAnswer{}, err
}

// withdraw takes back the lease request of a caller who went away: out of the device's queue,
// or, granted meanwhile, released. The node remembers a withdrawal that outran its request.
func (c *Client) withdraw(ctx context.Context, node string, req AcquireRequest) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	var ans LeaseAnswer
	err := c.request(wctx, node, EndpointRelease, ReleaseRequest{V: WireVersion, Serial: req.Serial, Request: req.ID, By: req.Holder.String()}, &ans)
	if err != nil {
		c.log.Warn("a lease request whose caller went away could not be withdrawn; a lease it gets ends at its idle expiry",
			"serial", req.Serial, "node", node, "holder", req.Holder.String(), "err", err)
	}
}

// Release gives a lease back to the device's node.
func (c *Client) Release(ctx context.Context, req ReleaseRequest) (LeaseAnswer, error) {
	var ans LeaseAnswer
	err := c.toDevice(ctx, req.Serial, EndpointRelease, req, &ans)
	if err == nil && ans.OK && req.Request == "" {
		c.applyLease(ans.Lease, "")
	}
	return ans, err
}

// Abort cancels tasks: on the device's node when the serial is known, else on every node.
func (c *Client) Abort(ctx context.Context, req AbortRequest) (AbortAnswer, error) {
	if req.Serial != "" {
		var ans AbortAnswer
		return ans, c.toDevice(ctx, req.Serial, EndpointAbort, req, &ans)
	}
	out := AbortAnswer{V: WireVersion, Aborted: []string{}}
	failed, skipped := c.eachNode(ctx, EndpointAbort, req, func() any { return &AbortAnswer{} }, func(v any) {
		a := v.(*AbortAnswer)
		out.Aborted = append(out.Aborted, a.Aborted...)
		out.TimedOut = append(out.TimedOut, a.TimedOut...)
		if a.Code != "" && out.Code == "" { // a node's refusal: that of a queued task of another principal (CodeDenied)
			out.Code, out.Error = a.Code, a.Error
		}
	})
	return out, errors.Join(append(slices.Collect(maps.Values(failed)), newerErr(skipped))...)
}

// Leases lists every live node's leases, handles blanked. When some do not answer, it returns
// the others' leases and a *PartialError saying which did not and why.
func (c *Client) Leases(ctx context.Context) ([]Lease, error) {
	var out []Lease
	failed, skipped := c.eachNode(ctx, EndpointLeases, struct{}{}, func() any { return &LeasesAnswer{} }, func(v any) {
		out = append(out, v.(*LeasesAnswer).Leases...)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Serial < out[j].Serial })
	return out, partial(failed, skipped)
}

// TaskRecord reads a finished task's record from the event stream: the last one on
// corral.v1.events.task.<node>.<id>, whatever the node, written by the node the record names.
// It waits recordGrace for a record not yet there: the caller may have had the task's answer
// through another client, and the owner node writes the record just after it answers.
// PollTaskRecord (record_grace.go) waits only when this client had the answer.
func (c *Client) TaskRecord(ctx context.Context, id string) (TaskResult, error) {
	return c.taskRecordWithin(ctx, id, recordGrace)
}

// errInvalidTaskID refuses a task id that is not one subject token (a wildcard would read
// another task's record).
func errInvalidTaskID(id string) error {
	return fmt.Errorf("task id %q is not valid: use the id a tool result or abort_task gave", id)
}

// Screenshot reads a task's screenshot by the name its record gives (SaveScreenshot).
func (c *Client) Screenshot(ctx context.Context, name string) ([]byte, error) {
	return c.stores.Screenshot(ctx, name)
}

// SessionDevice reads an MCP session's selected device.
func (c *Client) SessionDevice(ctx context.Context, session string) (SessionDefault, bool) {
	var d SessionDefault
	if !validSessionKey(session) {
		return d, false
	}
	e, err := c.stores.Sessions.Get(ctx, session)
	if err != nil || json.Unmarshal(e.Value(), &d) != nil {
		return d, false
	}
	return d, true
}

// toDevice sends a request to the node that owns serial.
func (c *Client) toDevice(ctx context.Context, serial, endpoint string, req, resp any) error {
	dev, ok := c.Device(serial)
	if !ok {
		return fmt.Errorf("no device %q in the registry; call list_available_devices", serial)
	}
	return c.request(ctx, dev.Node, endpoint, req, resp)
}

// eachNode sends req to every live node in parallel and merges the answers; it returns why
// each node that did not answer did not, and the nodes it did not ask as they beat in a newer
// wire version (node → version), whose answers would be refused.
func (c *Client) eachNode(ctx context.Context, endpoint string, req any, newResp func() any, merge func(any)) (failed map[string]error, skipped map[string]int) {
	nodes := c.live.Alive()
	var mu sync.Mutex
	var wg sync.WaitGroup
	failed = map[string]error{}
	for _, n := range nodes {
		if v := c.newerBeats.of(n); v != 0 {
			if skipped == nil {
				skipped = map[string]int{}
			}
			skipped[n] = v
			continue
		}
		wg.Go(func() {
			rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			defer cancel()
			resp := newResp()
			err := c.request(rctx, n, endpoint, req, resp)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[n] = err
				return
			}
			merge(resp)
		})
	}
	wg.Wait()
	return failed, skipped
}

// request sends one request to a node's endpoint and decodes the answer. It fails with
// ErrNodeLost as soon as the node is declared lost.
func (c *Client) request(ctx context.Context, node, endpoint string, req, resp any) error {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	return c.send(ctx, rctx, cancel, node, endpoint, req, resp)
}

// send is request on rctx, which the caller made from ctx with cancel: the caller may end the
// request too (awaitTask), without a context of its own around it.
func (c *Client) send(ctx, rctx context.Context, cancel context.CancelCauseFunc, node, endpoint string, req, resp any) error {
	data, err := encode(req)
	if err != nil {
		return fmt.Errorf("encode %s request: %w", endpoint, err)
	}
	lost := c.live.Lost(node)
	if lost.Err() != nil {
		return c.lostErr(ctx, node, false)
	}
	defer context.AfterFunc(lost, func() { c.endRequest(node, cancel) })()
	start := time.Now()
	subject := nodeEndpoint(node, endpoint)
	msg, err := c.nc.RequestWithContext(rctx, subject, data)
	if err != nil {
		if errors.Is(context.Cause(rctx), ErrNodeLost) {
			return c.lostErr(ctx, node, true)
		}
		if errors.Is(err, nats.ErrNoResponders) {
			return c.noRespondersErr(ctx, node, subject)
		}
		return fmt.Errorf("%s request to node %s: %w", endpoint, node, explainRefusal(c.nc, err))
	}
	c.opts.Metrics.observe(endpoint, time.Since(start))
	if code := msg.Header.Get("Nats-Service-Error-Code"); code != "" {
		return fmt.Errorf("node %s refused the %s request (%s): %s", node, endpoint, code, msg.Header.Get("Nats-Service-Error"))
	}
	if err := decode(msg.Data, resp); err != nil {
		if v := wireVersionOf(msg.Data); newerWire(v) {
			return c.newerAnswer(node, endpoint, v)
		}
		return fmt.Errorf("node %s sent an unreadable %s answer: %w", node, endpoint, err)
	}
	if a, ok := resp.(interface{ Version() int }); ok && newerWire(a.Version()) {
		v := a.Version()
		reflect.ValueOf(resp).Elem().SetZero() // nothing of it is kept, as if it never came
		return c.newerAnswer(node, endpoint, v)
	}
	return nil
}

// nodeEndpoint is the subject of a node's endpoint: NodeGroupT's, concatenated in one
// allocation rather than formatted (every call sends one request).
func nodeEndpoint(node, endpoint string) string {
	return Prefix + ".node." + node + "." + endpoint
}

// newerAnswer is why a node's answer of wire version v is refused; the node's first such
// answer is logged.
func (c *Client) newerAnswer(node, endpoint string, v int) error {
	c.newer.warn(c.log, "answer "+node, v, "a node answers in a newer wire version; its answers are refused: upgrade the gateway",
		"node", node, "endpoint", endpoint)
	return errNewerWire(fmt.Sprintf("node %s's %s answer", node, endpoint), v)
}

// encode is json.Marshal, sooner for a task (wirecodec.go): every tool call sends one.
func encode(v any) ([]byte, error) {
	if r, ok := v.(TaskRequest); ok {
		return r.AppendJSON(nil)
	}
	return json.Marshal(v)
}

// decode is json.Unmarshal, sooner for a task's result.
func decode(data []byte, v any) error {
	if r, ok := v.(*TaskResult); ok {
		return DecodeTaskResult(data, r)
	}
	return json.Unmarshal(data, v)
}

// validToken says whether s can be one NATS subject token or KV key.
func validToken(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '=') {
			return false
		}
	}
	return true
}

// DefaultProgressHandOver bounds how long Run waits for a task's progress to reach its caller:
// its callback is quick (an MCP call queues a notification), never waited for long.
const DefaultProgressHandOver = 250 * time.Millisecond

// handOverSpin is how long handedOver yields before it sleeps: a callback takes microseconds,
// and a sleep a millisecond.
const handOverSpin = time.Millisecond

// handedOver returns once sub's handler has handled every message queued for it, or false
// after wait. Run calls it on a task's progress once the answer came: the node sends its
// progress before it answers, on one connection, so it is all queued by then, but the
// subscription's goroutine may still be handing it over, and a caller told of progress after
// its result (an MCP call whose POST was answered) sends it elsewhere. nats.go counts a message
// pending until its handler returns; the usual call finds none and neither waits nor allocates.
func handedOver(sub *nats.Subscription, wait time.Duration) bool {
	var start time.Time
	for {
		if n, _, err := sub.Pending(); err != nil || n == 0 {
			return true
		}
		if start.IsZero() {
			start = time.Now()
		}
		switch waited := time.Since(start); {
		case waited > wait:
			return false
		case waited < handOverSpin:
			runtime.Gosched()
		default:
			time.Sleep(time.Millisecond)
		}
	}
}

// caughtUp returns once the heartbeats the server sent before now have been handled: a round
// trip to the server (its PONG comes after every message it sent before), then until the
// subscription's queue is empty. False if that takes longer than a heartbeat interval.
func caughtUp(nc *nats.Conn, sub *nats.Subscription) bool {
	deadline := time.Now().Add(HeartbeatInterval)
	if err := nc.FlushTimeout(HeartbeatInterval); err != nil {
		return false
	}
	for {
		if n, _, err := sub.Pending(); err != nil || n == 0 {
			return err == nil
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}
