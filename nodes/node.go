package nodes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/jsguard"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
	"github.com/corral-farm/corral/vision"
)

// Config configures an edge node.
type Config struct {
	// ID names the node; it must be unique in the farm and a valid NATS subject token.
	ID string
	// NC is the node's own NATS connection; the node closes it when it stops.
	NC     *nats.Conn
	Stores *broker.Stores
	// Ops are the tools the node serves (when nil: every tool, asking the farm's vision workers
	// through NC).
	Ops tools.Ops
	// LeaseTTL, LeaseMax, Grace and MaxQueue: see actors.Config.
	LeaseTTL, LeaseMax, Grace time.Duration
	MaxQueue                  int
	// Metrics is shared by every node of a process.
	Metrics *actors.Metrics
	Log     *slog.Logger
	// Boot names this start of the node in its heartbeats, micro service and logs; the caller
	// passes the one its node id claim records, so both name the same start (empty: a new one).
	Boot string
	// DeviceTags go to every device the node serves, beside its driver's (device_tags.go).
	DeviceTags []string
}

// Node is a running edge node: an actor system with a node supervisor, a scheduler and one
// actor per device; its micro service on NATS; heartbeats; and the registry mirror.
type Node struct {
	cfg     Config
	boot    string
	system  *actor.ActorSystem
	sched   *actor.PID
	svc     micro.Service
	mirror  *natsMirror
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	stopped sync.Once
	lostSub *nats.Subscription
	screens *screens // the console's live screens (screens.go)
	guard   *jsguard.Guard
	bounds  *entryBounds // cuts what drivers give to fit registry entries (entry_bounds.go)
	silence *silence     // whether it may just have been declared lost (silence.go)

	mu      sync.Mutex
	devices map[string]device.Driver
	bound   map[string]*boundDevice       // what the scheduler drives of each device, by serial
	known   map[string]broker.DeviceEntry // registry entries of this node from before its start
	halters map[string]bool               // devices whose driver could halt them, gone now (halt.go)
	// epochFloor: this start's devices grant epochs above it (epochs.go). Set before any device.
	epochFloor uint64
	lostAt     time.Time         // when the node last revoked its leases for a loss (connection.go)
	lostEpochs map[string]uint64 // each device's epoch then, before the revoke moved it on

	// stopping is set as Stop begins: the leases it revokes ask for no wipe (wipe.go).
	stopping atomic.Bool
}

// Start starts a node. Add devices with AddDriver.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if !ValidID(cfg.ID) {
		return nil, fmt.Errorf("node id %q: use letters, digits, '-' and '_' only (it is part of NATS subjects)", cfg.ID)
	}
	if err := CheckDeviceTags(cfg.DeviceTags); err != nil {
		return nil, fmt.Errorf("node %s: device tags: %w", cfg.ID, err)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	cfg.Log = cfg.Log.With("node", cfg.ID)
	if cfg.Ops == nil {
		cfg.Ops = tools.DefaultOpsWith(tools.OpsConfig{Vision: vision.NewClient(cfg.NC, 0, vision.WithLog(cfg.Log))})
	}
	cfg.Metrics.KnowNode(cfg.ID)
	tools := make([]string, 0, len(cfg.Ops))
	for name := range cfg.Ops {
		tools = append(tools, name)
	}
	cfg.Metrics.KnowTools(tools)

	if cfg.Boot == "" {
		cfg.Boot = broker.NewBootID()
	}

	// The node's goroutines (registry mirror, heartbeats) end when it stops, not with ctx: a
	// signal cancels the caller's context before its deferred Stop runs, and Stop still needs
	// them to record what its tasks did and to show its devices offline.
	life, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var err error
	n := &Node{cfg: cfg, boot: cfg.Boot, cancel: cancel, devices: map[string]device.Driver{}, bound: map[string]*boundDevice{}, halters: map[string]bool{}, guard: jsguard.New(cfg.Log),
		mirror: newNATSMirror(cfg.Stores, cfg.ID, cfg.Log), bounds: newEntryBounds(cfg.Log), silence: newSilence(cfg.Log)}
	n.mirror.health.linkSilent = n.silence.silentNow // a write fails for a silent link, not the disk (storehealth.go)
	n.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return cfg.Log.With("component", "actors")
	}))
	actors.LogDeadLetters(n.system, cfg.Log.With("component", "actors"))
	schedProps := actors.NewSchedulerProps(actors.Config{Node: cfg.ID, LeaseTTL: cfg.LeaseTTL, LeaseMax: cfg.LeaseMax,
		Grace: cfg.Grace, MaxQueue: cfg.MaxQueue, Mirror: n.mirror, Metrics: cfg.Metrics, Log: cfg.Log, CallerListens: n.callerListens,
		MayHaveBeenLost: n.silence.mayHaveBeenLost, HeldCallerListens: n.heldCallerListens})
	supProps, started := actors.NewNodeSupervisorProps(schedProps, cfg.Metrics, cfg.ID)
	n.system.Root.Spawn(supProps)
	fail := func(err error) (*Node, error) {
		cancel()
		n.system.Shutdown()
		return nil, err
	}
	select {
	case n.sched = <-started:
	case <-time.After(5 * time.Second):
		return fail(errors.New("node: scheduler did not start within 5s"))
	}
	// A request NATS refuses ends the start, rather than waiting for ever (start_refused.go).
	sctx, stopRefusal := startRefusal(ctx, cfg.NC)
	defer stopRefusal()
	if n.known, err = ownEntries(sctx, cfg.Stores, cfg.ID); err != nil {
		return fail(refusedOr(sctx, err))
	}
	if n.epochFloor, err = raiseEpochFloor(sctx, cfg.Stores.Calibrations, cfg.ID, n.known); err != nil {
		return fail(refusedOr(sctx, err))
	}
	// The leases a killed run left unended get their end (leases_unended.go).
	n.endLeasesOfLastRun(sctx)
	if err := refusedOr(sctx, nil); err != nil {
		return fail(err)
	}
	// Devices this node had before a restart are offline until they are attached again, but for
	// simulated ones and the browsers it made, which leave the registry (forgetSimulated); a task
	// that was running when the node stopped gets the record it never had.
	var sims []broker.DeviceEntry
	for _, e := range n.known {
		if e.Task != nil {
			n.mirror.TaskRecord(interrupted(cfg.ID, e))
		}
		if simulated(e) || nodeBrowser(e) {
			sims = append(sims, e)
			continue
		}
		n.showNotAttached(e)
	}
	for _, e := range n.forgetSimulated(ctx, sims) {
		n.showNotAttached(e)
	}
	n.wg.Go(func() { n.mirror.run(life) })
	n.silence.connected() // before requests come
	n.wg.Go(func() { n.silence.watch(life, cfg.NC) })
	n.screens = n.watchScreens(life)
	if err := n.serve(); err != nil {
		return fail(err)
	}
	// A node the farm declared lost revokes its leases when it hears of it (fencing).
	// One cut off from NATS when it was declared lost finds out when it is back (connection.go).
	// The entries of the same verdict may come too: said once.
	n.lostSub, err = cfg.NC.Subscribe(fmt.Sprintf(broker.EventNodeT, cfg.ID, "lost"), n.guard.Msg(n.heardLossEvent))
	if err != nil {
		return fail(fmt.Errorf("node: subscribe to loss events: %w", err))
	}
	n.wg.Go(func() { n.watchConnection(life) })
	n.wg.Go(func() { n.watchOwnEntries(life) }) // a verdict whose event never came (ownwatch.go)
	n.wg.Go(func() { n.heartbeat(life) })
	n.mirror.Event(broker.Event{V: broker.WireVersion, Kind: "node", Node: cfg.ID, What: "up", At: time.Now()})
	cfg.Log.Info("node started", "boot", n.boot)
	return n, nil
}

// showNotAttached shows e, a device the node had before it restarted, offline until it is
// attached again, with the node's tags of this start (withTagsNow).
func (n *Node) showNotAttached(e broker.DeviceEntry) {
	e, retagged := withTagsNow(e, n.cfg.DeviceTags)
	if e.State != broker.StateOffline || e.Task != nil || retagged {
		e.State, e.Reason, e.Holder, e.Task, e.Updated = broker.StateOffline, "node "+n.cfg.ID+" restarted; device not attached yet", "", nil, time.Now()
		n.mirror.Device(e)
	}
}

// ID returns the node's id.
func (n *Node) ID() string { return n.cfg.ID }

// AddDriver brings a device under this node. Its epoch continues from this start's epoch floor
// (epochs.go), above every epoch granted before the start, so holders of an epoch from before a
// restart stay fenced and no epoch is handed out twice.
func (n *Node) AddDriver(d device.Driver) {
	serial := d.Info().Serial
	n.mu.Lock()
	before := n.known[serial]
	n.mu.Unlock()
	epoch := max(before.Epoch, n.epochFloor)
	bd := newBoundDevice(d, n.cfg.Ops, n.cfg.ID, epoch, n.cfg.Metrics)
	bd.info.Tags = withNodeTags(bd.info.Tags, n.cfg.DeviceTags)
	bd.bounds, bd.info = n.bounds, n.bounds.info(bd.info)
	if bd.wipes != nil {
		bd.wipes.stopping = func() bool { return n.stopping.Load() || bd.removed.Load() }
	}
	n.mu.Lock()
	n.devices[serial], n.bound[serial] = d, bd
	n.mu.Unlock()
	if before.Holder != "" {
		n.mirror.Lease(serial, nil) // the lease KV remembers died with the old node
	}
	bd.exportGauges()
	n.system.Root.Send(n.sched, actors.AddDevice{Device: bd})
	if h, ok := d.(device.HealthReporter); ok {
		h.ReportHealth(func(err error) {
			bd.exportGauges() // what the driver measures changes with its health too, between tasks
			n.system.Root.Send(n.sched, actors.SetHealth{Serial: serial, Err: n.bounds.reason(serial, err)})
		})
	}
}

// RemoveDevice marks a device offline: unplugged, or its driver lost it. The device is marked
// removed before the scheduler hears of it: the lease the scheduler revokes then asks for no
// wipe, which could otherwise start a fresh browser before Close is reached, only for Close to
// kill it (and wait for it, on a loaded node). Close takes what the holder left with it.
func (n *Node) RemoveDevice(serial, reason string) {
	n.mu.Lock()
	d, bd := n.devices[serial], n.bound[serial]
	delete(n.devices, serial)
	delete(n.bound, serial)
	if _, ok := d.(device.Halter); ok {
		n.halters[serial] = true
	}
	n.mu.Unlock()
	if bd != nil {
		bd.removed.Store(true)
	}
	n.system.Root.Send(n.sched, actors.RemoveDevice{Serial: serial, Reason: n.bounds.reasonText(serial, reason)})
	if c, ok := d.(device.Closer); ok {
		_ = c.Close()
	}
}

// Stop shuts the node down in order: its devices go offline, its leases are revoked and
// callers told; its running tasks are cancelled and given the grace period to return, so that
// their callers and records say the node stopped them, and when; then its devices are
// removed, the service stopped, the mirror flushed, the actors stopped, NATS drained.
// Whoever starts a node stops it (or kills it): cancelling Start's context does not.
func (n *Node) Stop() {
	n.stopped.Do(func() {
		n.stopping.Store(true)
		n.mu.Lock()
		serials := make([]string, 0, len(n.devices))
		for s := range n.devices {
			serials = append(serials, s)
		}
		n.mu.Unlock()
		n.system.Root.Send(n.sched, actors.RevokeAll{Reason: "is shutting down", Shutdown: true})
		if running := n.awaitTasks(n.stopWait()); running != 0 {
			n.cfg.Log.Warn("tasks still run as the node stops (-1: its scheduler did not say); their devices are removed under them", "running", running)
		}
		for _, s := range serials {
			n.RemoveDevice(s, "node "+n.cfg.ID+" shut down")
		}
		// Let the scheduler answer everyone before the service goes.
		answered := make(chan struct{})
		n.system.Root.Send(n.sched, actors.ListLeases{Reply: func(broker.LeasesAnswer) { close(answered) }})
		select {
		case <-answered:
		case <-time.After(2 * time.Second):
		}
		n.mirror.Event(broker.Event{V: broker.WireVersion, Kind: "node", Node: n.cfg.ID, What: "down", At: time.Now()})
		_ = n.svc.Stop()
		_ = n.lostSub.Unsubscribe()
		n.cancel()
		n.wg.Wait()
		n.system.Shutdown()
		_ = n.cfg.NC.Drain()
		n.cfg.Log.Info("node stopped")
	})
}

// stopWait bounds how long Stop waits for cancelled tasks: a driver has the grace period to
// return, after which the scheduler answers its task itself (actors/README.md rule 6).
func (n *Node) stopWait() time.Duration {
	grace := n.cfg.Grace
	if grace <= 0 {
		grace = actors.DefaultGrace
	}
	return grace + time.Second
}

// awaitTasks waits, for at most limit, until no task runs on the node; it returns how many
// still do.
func (n *Node) awaitTasks(limit time.Duration) int {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	status := broker.DrainRequest{V: broker.WireVersion, Action: broker.DrainStatus}
	running := -1
	for {
		answer := make(chan int, 1)
		n.system.Root.Send(n.sched, actors.Drain{Req: status, Reply: func(a broker.DrainAnswer) { answer <- a.Running }})
		select {
		case running = <-answer:
		case <-deadline.C:
			return running
		}
		if running == 0 {
			return 0
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return running
		}
	}
}

// Kill stops the node as a crash would: no goodbye, connection cut. Tests use it.
func (n *Node) Kill() {
	n.stopped.Do(func() {
		n.cfg.NC.Close()
		n.cancel()
		n.wg.Wait()
		n.system.Shutdown()
	})
}

// heartbeat publishes the node's heartbeat until ctx ends.
func (n *Node) heartbeat(ctx context.Context) {
	t := time.NewTicker(broker.HeartbeatInterval)
	defer t.Stop()
	for {
		n.mu.Lock()
		count := len(n.devices)
		n.mu.Unlock()
		publishJSON(n.cfg.NC, fmt.Sprintf(broker.HeartbeatT, n.cfg.ID), broker.Heartbeat{
			V: broker.WireVersion, Node: n.cfg.ID, Boot: n.boot, Devices: count, Sent: time.Now()})
		n.cfg.Metrics.Heartbeat(n.cfg.ID)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// ValidID says whether id can name a node: it is a token of NATS subjects.
func ValidID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// interrupted is the record of the task e's device was running when its node stopped. One the
// farm declared lost meanwhile is lost (node_lost), ended at the verdict (the entry's Updated),
// as its caller was told then, not failed at this restart.
func interrupted(node string, e broker.DeviceEntry) broker.TaskResult {
	t := e.Task
	res := broker.TaskResult{V: broker.WireVersion, ID: t.ID, Serial: e.Serial, Node: node, Tool: t.Tool,
		Outcome: broker.OutcomeFailed, Code: broker.CodeInterrupted,
		Error:     fmt.Sprintf("node %s stopped (crashed or was killed) while %s ran on %s; what it did to the device is unknown: peek before going on", node, t.Tool, e.Serial),
		Submitted: t.Started, Started: t.Started, Finished: time.Now(), LeaseEpoch: e.Epoch}
	if broker.DeclaredLost(e) {
		res.Outcome, res.Code, res.Finished = broker.OutcomeLost, broker.CodeNodeLost, e.Updated
		res.Error = fmt.Sprintf("%s while %s ran on %s (it crashed or was killed); what it did to the device is unknown: peek before going on", e.Reason, t.Tool, e.Serial)
	}
	if t.Holder != nil {
		res.Holder = *t.Holder
	}
	return res
}
