package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/corral-farm/corral/broker"
)

// Internal messages of the scheduler (timers and its own children).
type (
	leaseTimer struct {
		serial string
		epoch  uint64
	}
	waitTimer struct {
		serial string
		id     uint64
	}
)

// Defaults of Config: tasks and lease requests waiting per device (MaxQueue), and how long a
// cancelled driver may take to return (Grace).
const (
	DefaultMaxQueue = 100
	DefaultGrace    = time.Second
)

// Config configures a scheduler.
type Config struct {
	Node string
	// LeaseTTL is the idle time after which a lease expires (renewed by each of its tasks);
	// LeaseMax the hard maximum of a lease.
	LeaseTTL time.Duration
	LeaseMax time.Duration
	// Grace is how long a cancelled driver may take to return before its device is marked
	// unhealthy and its actor restarted.
	Grace time.Duration
	// HolderQueue bounds how long a lease holder's task waits behind the holder's running task.
	HolderQueue time.Duration
	// MaxQueue bounds the tasks and lease requests waiting for one device, whatever gateway
	// they came through; beyond it they are refused with queue_full instead of piling up.
	MaxQueue int
	// CallerListens, when set, says whether the caller of a task is still there: a task that
	// waited in the queue starts only if it is (caller_gone.go). It runs on the device's
	// worker before the task, and must return within a round trip or so.
	CallerListens func(ctx context.Context, req broker.TaskRequest) bool
	Mirror        Mirror
	Metrics       *Metrics
	Log           *slog.Logger // carries the node (nodes.Start adds it)

	// CallerCheckEvery is how often a running task's caller is asked too, once it has run
	// that long; CallerGoneAfter how long it must have been gone for its task to be aborted
	// (caller_gone.go). Defaults: DefaultCallerCheckEvery, DefaultCallerGoneAfter.
	CallerCheckEvery, CallerGoneAfter time.Duration

	// MayHaveBeenLost, when set, says whether the node may just have been silent long enough
	// for the farm to declare it lost: a task it takes then is asked about as one that waited
	// (caller_gone.go). Called for every task: it must be cheap.
	MayHaveBeenLost func() bool
	// HeldCallerListens, when set, is asked in CallerListens' place about such a task: one
	// that CallerListens lets start whatever became of its caller (an agent task, which
	// outlives it) must not start unasked when its caller may have been told the node was lost.
	HeldCallerListens func(ctx context.Context, req broker.TaskRequest) bool

	// beforeStart, set by tests, runs on the device's worker as an asked task is handed to its
	// driver: after the worker's last look at its context, before its start is decided
	// (caller_gone_lost.go).
	beforeStart func()
}

func (c *Config) defaults() {
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = 300 * time.Second
	}
	if c.LeaseMax <= 0 {
		c.LeaseMax = 4 * time.Hour
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	if c.HolderQueue <= 0 {
		c.HolderQueue = 10 * time.Minute
	}
	if c.MaxQueue <= 0 {
		c.MaxQueue = DefaultMaxQueue
	}
	if c.CallerCheckEvery <= 0 {
		c.CallerCheckEvery = DefaultCallerCheckEvery
	}
	if c.CallerGoneAfter <= 0 {
		c.CallerGoneAfter = DefaultCallerGoneAfter
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Cancellation causes: they decide a cancelled task's outcome.
type cause struct {
	outcome  string
	code     string
	msg      string
	deadline time.Duration // set for a deadline: the message is written only if it is read
}

func (c *cause) Error() string {
	if c.deadline > 0 {
		return fmt.Sprintf("deadline of %s passed", c.deadline)
	}
	return c.msg
}

// withCause is a cancelled task's error: its cause, then what the driver said, without the
// cause again at its end where the driver wrapped context.Cause ("deadline of 5ms passed;
// device d1: scale the image", not "...: scale the image: deadline of 5ms passed"). The
// cause stays first: callers read the outcome's reason there.
func withCause(driverErr, cause string) string {
	driverErr = strings.TrimSuffix(driverErr, ": "+cause)
	if driverErr == "" || driverErr == cause {
		return cause
	}
	return cause + "; " + driverErr
}

// slot is the scheduler's view of one device.
type slot struct {
	dev        Device
	info       broker.DeviceEntry
	pid        *actor.PID
	health     string // online, unhealthy or offline; leased and busy are derived
	reason     string
	halt       string // why the device is halted (halt.go); "" when it is not
	probing    bool   // checked after a task timed out: nothing starts until the answer (probeTimedOut)
	epoch      uint64
	lease      *broker.Lease
	leaseReq   string        // the id of the request the lease was granted to (withdraw.go)
	ttl        time.Duration // the lease's idle TTL: each of its tasks pushes its expiry this far
	ended      []endedLease  // the device's latest leases that ended, to say why (stale.go)
	running    *task
	queue      []*waiter
	turns      turns // whose turn it is when several principals wait (turns.go)
	series     *deviceSeries
	holder     broker.Holder // whoever holds or runs on the device, as last shown
	holderName string        // its String()
	shown      string        // state last reported, for metrics and the registry
	queueMoved bool          // the queue changed since it was last shown (queue_view.go)
	freed      time.Time     // when the device last became free, for the hand-over metric
}

// task is a task the scheduler has accepted.
type task struct {
	req       broker.TaskRequest
	reply     func(broker.TaskResult)
	progress  func(broker.Progress)
	abortedBy string // who aborted it, for its record's aborted_by: set with the abort (abort_cause.go)
	submitted time.Time
	started   time.Time
	epoch     uint64
	implicit  bool
	deadline  time.Time
	expected  time.Time // when it should end, if its tool can tell (task_expected.go); zero: unknown
	cancel    context.CancelCauseFunc
	ctx       context.Context
	waited    bool   // it waited in the queue: its caller is asked before it runs (caller_gone.go)
	aborted   *cause // an abort that came as it ended for its device gone (unplugged.go)
	// While it runs (caller_gone.go): its caller is being asked, and since when it is gone.
	askingCaller    bool
	callerGoneSince time.Time
	// It came as its node may just have been declared lost: asked before it runs, as if it
	// had waited (caller_gone.go).
	afterSilence bool
}

// waiter is a queued task or lease request.
type waiter struct {
	id       uint64
	task     *task
	acquire  *AcquireLease
	enqueued time.Time
	timer    *time.Timer
	// untilProbed: a task that asked not to wait, held only for the health check after a
	// timeout; refused if the device turns out unhealthy.
	untilProbed bool
}

// Scheduler is the actor that owns the leases and queues of one node's devices and decides
// which task runs on which device when. It is the single authority for its devices.
type Scheduler struct {
	cfg     Config
	slots   map[string]*slot
	byPID   map[string]string // device actor id → serial
	nextID  uint64
	waiting map[string]int // principal → its waiters in this node's queues, for Share.MaxQueued
	// withdrawn are lease requests withdrawn before they came, by id, and when (withdraw.go).
	withdrawn map[string]time.Time
	drained   drainState // set while the node drains (drain.go)
	stopping  bool       // the node stops: its leases' revocations are expected, not warnings
	moved     []*slot    // devices whose queues moved during the message (queue_view.go)
	self      *actor.PID
	root      *actor.RootContext

	callersDue bool // a check of running tasks' callers is due (caller_gone.go)
}

// inline runs an idle actor's mailbox on the goroutine that sends to it, rather than on a new
// goroutine per wake-up: a call crosses the scheduler and its device's actor twice, and each
// hop to a fresh goroutine cost more than the actors' own work (a call through the node took
// 60 µs, 44 µs inline). The actors' handlers never block (drivers run on workers of their
// own, replies only publish), so a sender runs them briefly: until the mailbox is empty,
// yielding every 300 messages. (A sender to a busy scheduler is held while others' messages
// keep it busy; replies must not block for that reason too.) No one sends to them holding a
// lock their handlers take.
func inline() actor.Dispatcher { return actor.NewSynchronizedDispatcher(300) }

// NewSchedulerProps returns the props of a scheduler whose device actors are supervised
// one-for-one with exponential back-off.
func NewSchedulerProps(cfg Config) *actor.Props {
	cfg.defaults()
	return actor.PropsFromProducer(func() actor.Actor {
		return &Scheduler{cfg: cfg, slots: map[string]*slot{}, byPID: map[string]string{}, waiting: map[string]int{}, withdrawn: map[string]time.Time{}}
	}, actor.WithSupervisor(newDeviceSupervisor(cfg.Metrics, cfg.Node)), actor.WithDispatcher(inline()))
}

// Receive handles the scheduler's messages.
func (s *Scheduler) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		s.self, s.root = ctx.Self(), ctx.ActorSystem().Root
	case SubmitTask:
		s.submit(m)
	case AcquireLease:
		s.acquire(m)
	case ReleaseLease:
		m.Reply(s.release(m.Req))
	case AbortTasks:
		m.Reply(s.abort(m.Req))
	case ListLeases:
		m.Reply(s.leases())
	case CaptureScreen:
		s.capture(m)
	case Drain:
		m.Reply(s.drain(m.Req))
	case AddDevice:
		s.addDevice(ctx, m.Device)
	case RemoveDevice:
		s.removeDevice(ctx, m.Serial, m.Reason)
	case RevokeAll:
		s.revokeAll(m)
	case taskFinished:
		s.finished(m)
	case deviceHealth:
		s.deviceHealth(m)
	case SetHealth:
		s.deviceHealth(deviceHealth{serial: m.Serial, err: m.Err})
	case SetHalted:
		s.setHalted(m)
	case haltChecked:
		s.haltChecked(m)
	case deviceHalted:
		s.deviceHalted(m)
	case leaseTimer:
		s.leaseTimer(m)
	case waitTimer:
		s.waitTimer(m)
	case callersTimer:
		s.askRunningCallers()
	case callerAnswer:
		s.callerAnswered(m)
	case *actor.Terminated:
		delete(s.byPID, m.Who.Id)
	}
	if len(s.moved) > 0 {
		s.showQueues()
	}
}

func (s *Scheduler) addDevice(ctx actor.Context, dev Device) {
	info := dev.Info()
	sl, ok := s.slots[info.Serial]
	if ok && sl.pid != nil {
		s.cfg.Log.Warn("device added twice; keeping the first", "serial", info.Serial)
		return
	}
	if !ok {
		sl = &slot{epoch: info.Epoch, series: s.cfg.Metrics.device(s.cfg.Node, info.Serial)}
		s.slots[info.Serial] = sl
	}
	sl.dev, sl.info, sl.halt, sl.probing = dev, info, "", false // a device added again has a new driver
	// Unhealthy until its actor's first health check passes.
	sl.health, sl.reason = broker.StateUnhealthy, reasonStarting
	calls := newScreenCalls(s.cfg.Metrics, s.cfg.Node, s.cfg.Log) // every incarnation's (capture_calls.go)
	sl.pid = ctx.Spawn(actor.PropsFromProducer(func() actor.Actor {
		return &deviceActor{dev: dev, grace: s.cfg.Grace, calls: calls}
	}, actor.WithDispatcher(inline())))
	s.byPID[sl.pid.Id] = info.Serial
	s.show(sl)
	s.watchHalts(dev)
}

func (s *Scheduler) removeDevice(ctx actor.Context, serial, reason string) {
	sl, ok := s.slots[serial]
	if !ok {
		return
	}
	sl.health, sl.reason, sl.probing = broker.StateOffline, reason, false
	if t := sl.running; t != nil {
		// Answered with what its op returns, if it does within Grace (unplugged.go).
		s.awaitUnplugged(sl, t, fmt.Sprintf("device %s disconnected during the task (%s)", serial, reason))
	}
	s.endLease(sl, "revoked", "device offline: "+reason)
	s.failQueue(sl, func(w *waiter) bool { return true }, broker.OutcomeLost, broker.CodeOffline,
		fmt.Sprintf("device %s went offline (%s) while you waited", serial, reason))
	if sl.pid != nil {
		ctx.Stop(sl.pid)
		sl.pid = nil
	}
	s.show(sl)
}

func (s *Scheduler) revokeAll(m RevokeAll) {
	reason := m.Reason
	for serial, sl := range s.slots {
		if t := sl.running; t != nil {
			t.cancel(s.revokedTask(m, t, serial))
		}
		if m.Shutdown && sl.health != broker.StateOffline {
			// Nothing new starts; the running task still returns here, to be answered and recorded.
			sl.health, sl.reason = broker.StateOffline, fmt.Sprintf("node %s %s", s.cfg.Node, reason)
		}
		s.stopping = s.stopping || m.Shutdown
		s.endLease(sl, "revoked", fmt.Sprintf("node %s %s", s.cfg.Node, reason))
		sl.epoch++ // fence whoever held the old epoch
		outcome, code, msg := s.unqueued(m, serial)
		s.failQueue(sl, func(*waiter) bool { return true }, outcome, code, msg)
		s.show(sl)
		s.cfg.Mirror.Device(sl.info) // whoever declared us lost wrote "offline": say what is true
	}
}

// unqueued is what RevokeAll answers the waiters of serial's queue. At a clean shutdown they
// never ran, and the node says so: refused, device offline, to retry when the node is back.
// lost (node_lost) would say the node stopped answering, and a task may have run.
func (s *Scheduler) unqueued(m RevokeAll, serial string) (outcome, code, msg string) {
	if m.Shutdown {
		return broker.OutcomeRefused, broker.CodeOffline, fmt.Sprintf(
			"device %s: node %s %s before your turn in its queue came; nothing ran. Retry when the node is back (list_available_devices shows %s online), or use another device",
			serial, s.cfg.Node, m.Reason, serial)
	}
	return broker.OutcomeLost, broker.CodeNodeLost, fmt.Sprintf("device %s: node %s %s", serial, s.cfg.Node, m.Reason)
}

// revokedTask is why RevokeAll cancels t, running on serial: its node was lost, or stopped it.
func (s *Scheduler) revokedTask(m RevokeAll, t *task, serial string) *cause {
	if m.Shutdown {
		return &cause{outcome: broker.OutcomeFailed, code: broker.CodeInterrupted,
			msg: fmt.Sprintf("node %s %s and stopped %s on %s; what it did to the device is unknown: peek before going on", s.cfg.Node, m.Reason, t.req.Tool, serial)}
	}
	return &cause{outcome: broker.OutcomeLost, code: broker.CodeNodeLost, msg: fmt.Sprintf("node %s: %s", s.cfg.Node, m.Reason)}
}

// reasonStarting is a new device's reason for being unhealthy until its first check answers.
const reasonStarting = "starting"

func (s *Scheduler) deviceHealth(m deviceHealth) {
	sl, ok := s.slots[m.serial]
	if !ok || sl.health == broker.StateOffline {
		return
	}
	was, wasReason := sl.health, sl.reason
	if m.checked {
		sl.probing = false
	}
	if m.err != nil {
		sl.health, sl.reason = broker.StateUnhealthy, m.err.Error()
		if was != sl.health || wasReason != sl.reason { // rechecks repeat it every half minute
			s.cfg.Log.Warn("device unhealthy", "serial", m.serial, "err", m.err)
		}
	} else {
		sl.health, sl.reason = broker.StateOnline, ""
		if was == broker.StateUnhealthy && wasReason != reasonStarting {
			s.cfg.Log.Info("device healthy again", "serial", m.serial, "was", wasReason)
		}
	}
	if sl.health == broker.StateUnhealthy && !sl.takesTasks() {
		s.failQueue(sl, func(w *waiter) bool { return w.untilProbed }, broker.OutcomeRefused, broker.CodeUnhealthy, unhealthyText(sl))
	}
	s.show(sl)
	s.dispatch(sl)
}

// submit accepts a task: runs it, queues it or refuses it (actors/README.md rules 1-3).
func (s *Scheduler) submit(m SubmitTask) {
	now := time.Now()
	t := &task{req: m.Req, reply: m.Reply, progress: m.Progress, submitted: now, afterSilence: s.mayHaveBeenLost()}
	sl, ok := s.slots[m.Req.Serial]
	if !ok {
		s.refuse(t, broker.CodeUnknownDevice, fmt.Sprintf("no device %q on node %s; call list_available_devices", m.Req.Serial, s.cfg.Node), nil)
		return
	}
	// A timeout_ms over the tool's cap is refused now, before the task waits or renews a
	// lease, not when its turn comes (start checks again, for the deadline it arms).
	if _, err := sl.dev.Deadline(t.req.Tool, t.req.TimeoutMS); err != nil {
		s.refuse(t, broker.CodeBadInput, err.Error()+"; nothing ran or waited", nil)
		return
	}
	if refused := s.checkHealth(sl, t); refused || s.refuseDraining(t) {
		return
	}
	if t.req.Lease != "" {
		if sl.lease == nil || sl.lease.Handle != t.req.Lease {
			s.refuseStale(t, sl)
			return
		}
		if sl.idle() {
			s.start(sl, t)
		} else if !s.refuseQueueFull(t, sl) {
			// Behind its own task it waits; held only by the check after a timeout, it is
			// refused if the device turns out unhealthy, as it would be then.
			s.enqueue(sl, &waiter{task: t, untilProbed: sl.running == nil && t.req.WaitMS <= 0}, s.cfg.HolderQueue)
		}
		s.renew(sl) // after the task is on its way
		return
	}
	if sl.lease == nil && sl.running == nil && len(sl.queue) == 0 {
		if sl.probing {
			s.holdUntilProbed(sl, t)
			return
		}
		s.start(sl, t)
		return
	}
	// Without its lease, the holder's own call would wait for the lease to end: on itself.
	// Refused at once, as busy: the gateway tells its caller to pass the lease.
	if t.req.WaitMS <= 0 || sl.lease != nil && sl.lease.Holder.Is(t.req.Holder) {
		s.refuse(t, broker.CodeBusy, fmt.Sprintf("device %s is busy", sl.info.Serial), sl)
		return
	}
	if !s.refuseHaltedWait(t, sl) && !s.refuseQueueFull(t, sl) {
		s.enqueue(sl, &waiter{task: t}, time.Duration(t.req.WaitMS)*time.Millisecond)
	}
}

// queueRefusal says why the device's queue takes no more waiters from who, counting the
// refusal the caller is about to make; "" while there is room.
func (s *Scheduler) queueRefusal(sl *slot, who broker.Holder, share broker.Share) (code, msg string) {
	if len(sl.queue) >= s.cfg.MaxQueue {
		s.cfg.Metrics.queueFull(s.cfg.Node)
		return broker.CodeQueueFull, fmt.Sprintf("device %s has %d tasks and lease requests waiting, the most its node queues (--max-queue); %s. Retry later or use another device",
			sl.info.Serial, len(sl.queue), sl.holderNow())
	}
	if n := s.waiting[who.Principal]; share.MaxQueued > 0 && n >= share.MaxQueued {
		s.cfg.Metrics.queueQuota(s.cfg.Node)
		return broker.CodeQuota, fmt.Sprintf("%s already has %d tasks and lease requests waiting on node %s, the most its policy allows (max_queued); wait for them or abort some",
			who.Principal, n, s.cfg.Node)
	}
	return "", ""
}

// refuseQueueFull refuses t when the device's queue takes no more of its principal's waiters.
func (s *Scheduler) refuseQueueFull(t *task, sl *slot) bool {
	code, msg := s.queueRefusal(sl, t.req.Holder, t.req.Share)
	if msg != "" {
		s.refuse(t, code, msg, nil)
	}
	return msg != ""
}

// checkHealth refuses a task for an offline or unhealthy device; a halted one takes it
// (halt.go).
func (s *Scheduler) checkHealth(sl *slot, t *task) bool {
	if sl.takesTasks() {
		return false
	}
	switch sl.health {
	case broker.StateOffline:
		s.refuse(t, broker.CodeOffline, fmt.Sprintf("device %s is offline (%s); pick another device from list_available_devices", sl.info.Serial, sl.reason), nil)
		return true
	case broker.StateUnhealthy:
		s.refuse(t, broker.CodeUnhealthy, unhealthyText(sl), nil)
		return true
	}
	return false
}

// unhealthyText is the refusal of a task for an unhealthy device.
func unhealthyText(sl *slot) string {
	return fmt.Sprintf("device %s is unhealthy (%s); it takes no tasks until a health check passes — retry shortly or pick another device", sl.info.Serial, sl.reason)
}

// start runs t on the device now.
func (s *Scheduler) start(sl *slot, t *task) {
	d, err := sl.dev.Deadline(t.req.Tool, t.req.TimeoutMS)
	if err != nil {
		s.refuse(t, broker.CodeBadInput, err.Error(), nil)
		s.dispatch(sl)
		return
	}
	now := time.Now()
	t.started = now
	if sl.lease == nil {
		sl.epoch++ // an implicit lease is a grant too
		t.implicit = true
		sl.turns.served(t.req.Holder.Principal, t.req.Share.Weight)
	}
	t.epoch = sl.epoch
	t.deadline = now.Add(d)
	t.expected = expectedEnd(sl.dev, t.req, now, d)
	ctx, cancel := context.WithCancelCause(context.Background())
	ctx, stopDeadline := context.WithDeadlineCause(ctx, t.deadline, &cause{outcome: broker.OutcomeTimedOut, deadline: d})
	t.ctx = ctx
	t.cancel = func(err error) { cancel(err); stopDeadline() }
	sl.running = t
	// The device gets its task before the bookkeeping, which the other core may overlap with
	// the worker (what the worker reports waits in the mailbox until this message is done).
	listening, started := s.askCaller(t)
	s.root.Send(sl.pid, runTask{id: t.req.ID, req: t.req, ctx: ctx, progress: t.progress, listening: listening, started: started})
	s.watchCallers(t)
	s.cfg.Metrics.queueWait.Observe(now.Sub(t.submitted).Seconds())
	s.show(sl)
}

// finished completes the running task and hands the device to whoever is next.
func (s *Scheduler) finished(m taskFinished) {
	sl, ok := s.slots[m.serial]
	if !ok || sl.running == nil || sl.running.req.ID != m.id {
		return
	}
	t := sl.running
	sl.running = nil
	sl.freed = m.at
	res := m.result
	if c := t.cause(); c != nil && res.Outcome != broker.OutcomeSucceeded {
		var why *cause
		if errors.As(c, &why) {
			res.Outcome, res.Code = why.outcome, why.code
			res.Error = withCause(res.Error, why.Error())
		}
	}
	if res.Outcome == "" {
		res.Outcome = broker.OutcomeFailed
	}
	t.cancel(nil)
	if m.unstarted {
		s.notStarted(t, &res) // caller_gone.go
	}
	if !t.implicit && sl.lease != nil && sl.lease.Epoch == t.epoch {
		s.renew(sl) // before the answer: the idle TTL counts from no later than it
	}
	s.answer(t, res)
	s.afterHaltedTask(sl, res)
	if !m.unstarted { // a deadline that passed before the driver got the task says nothing of the device
		s.probeTimedOut(sl, res)
	}
	s.show(sl)
	s.dispatch(sl)
}

// probeTimedOut asks the device's actor for a health check after a task timed out on it, and
// holds the device until the answer: a driver that answered nothing within a deadline may be
// hung (its process stopped), and the next waiter would run its whole deadline on it too.
// Unhealthy, the device keeps its queue waiting until a recheck passes, as a device whose
// driver reports its own health does (SetHealth). A halted device takes tasks whatever its
// checks say (halt.go), and an unhealthy one is being checked already.
func (s *Scheduler) probeTimedOut(sl *slot, res broker.TaskResult) {
	if res.Outcome != broker.OutcomeTimedOut || sl.health != broker.StateOnline || sl.halt != "" || sl.pid == nil {
		return
	}
	sl.probing = true
	s.root.Send(sl.pid, probeAfterTimeout{})
}

// holdUntilProbed queues a task that came for the free device while it is checked after a
// timeout. One that asked to wait waits as it asked. One that did not would have started at
// once: it waits for the check's answer only, and is refused if the device turns out
// unhealthy.
func (s *Scheduler) holdUntilProbed(sl *slot, t *task) {
	if s.refuseQueueFull(t, sl) {
		return
	}
	if t.req.WaitMS > 0 {
		s.enqueue(sl, &waiter{task: t}, time.Duration(t.req.WaitMS)*time.Millisecond)
		return
	}
	// The check answers, or is overdue, within twice its timeout; twice that again covers a
	// loaded host's late timers.
	s.enqueue(sl, &waiter{task: t, untilProbed: true}, 4*probeGraces*s.cfg.Grace)
}

// dispatch starts the next task or grants the next lease, if the device is free.
func (s *Scheduler) dispatch(sl *slot) {
	if sl.probing {
		return // the probe's answer dispatches; the hand-over counts from the task's end
	}
	freed := sl.freed
	sl.freed = time.Time{}
	served := func(w *waiter) {
		s.cfg.Metrics.servedWaiter(s.cfg.Node, w.principal())
		if !freed.IsZero() {
			s.cfg.Metrics.handedOver(freed)
			freed = time.Time{}
		}
	}
	for sl.running == nil && sl.takesTasks() && len(sl.queue) > 0 {
		if sl.lease != nil {
			i := sl.holderTask()
			if i < 0 {
				return // the holder has nothing queued; others wait for the lease to end
			}
			w := s.dequeue(sl, i)
			served(w)
			w.task.waited = true
			s.start(sl, w.task)
			continue
		}
		w := s.dequeue(sl, sl.turns.pick(sl.queue))
		if w.acquire != nil {
			served(w)
			s.grant(sl, w.acquire, time.Since(w.enqueued))
			continue
		}
		if w.task.req.Lease != "" {
			s.refuse(w.task, broker.CodeStaleLease, "your lease ended while this task waited; call acquire_device again", sl)
			continue
		}
		served(w)
		w.task.waited = true
		s.start(sl, w.task)
	}
}

// answer replies to a task's caller and records it.
func (s *Scheduler) answer(t *task, res broker.TaskResult) {
	res.V, res.ID, res.Serial, res.Node, res.Tool, res.Holder = broker.WireVersion, t.req.ID, t.req.Serial, s.cfg.Node, t.req.Tool, t.req.Holder
	res.Submitted, res.Started, res.Finished, res.LeaseEpoch = t.submitted, t.started, time.Now(), t.epoch
	if res.Outcome == broker.OutcomeAborted && res.AbortedBy == "" {
		res.AbortedBy = t.abortedBy
	}
	t.reply(res) // first: the caller waits; the records and metrics do not
	s.cfg.Metrics.task(t.req.Tool, res.Outcome, res.Finished.Sub(t.submitted))
	if sl, known := s.slots[t.req.Serial]; known {
		var busy time.Duration
		if !t.started.IsZero() {
			busy = res.Finished.Sub(t.started)
		}
		sl.series.task(res.Outcome, busy)
	}
	s.cfg.Mirror.TaskRecord(res.Record())
}

// refuse answers a task that did not run; sl (optional) names who holds the device.
func (s *Scheduler) refuse(t *task, code, msg string, sl *slot) {
	res := broker.TaskResult{Outcome: broker.OutcomeRefused, Code: code, Error: msg}
	if code == broker.CodeBusy || code == broker.CodeWaitExpired {
		res.Lease = sl.holderView()
	}
	res.LeaseEnded = staleFields(code, t, sl)
	s.answer(t, res)
}

func (s *Scheduler) enqueue(sl *slot, w *waiter, wait time.Duration) {
	s.nextID++
	w.id, w.enqueued = s.nextID, time.Now()
	serial := sl.info.Serial
	w.timer = time.AfterFunc(wait, func() { s.root.Send(s.self, waitTimer{serial: serial, id: w.id}) })
	sl.queue = append(sl.queue, w)
	s.counted(sl, w, 1)
}

// counted moves the queue counts, of the device and of the waiter's principal, by delta.
func (s *Scheduler) counted(sl *slot, w *waiter, delta int) {
	p := w.principal()
	if s.waiting[p] += delta; s.waiting[p] <= 0 {
		delete(s.waiting, p)
	}
	s.cfg.Metrics.queued(s.cfg.Node, sl.series, p, float64(delta))
	s.queueMoved(sl)
}

func (s *Scheduler) waitTimer(m waitTimer) {
	sl, ok := s.slots[m.serial]
	if !ok {
		return
	}
	for i, w := range sl.queue {
		if w.id != m.id {
			continue
		}
		s.dequeue(sl, i)
		msg := fmt.Sprintf("waited %s in the queue of %s without getting it", time.Since(w.enqueued).Round(time.Millisecond), m.serial) + sl.stateText()
		if w.task != nil {
			s.refuse(w.task, broker.CodeWaitExpired, msg, sl)
		} else {
			w.acquire.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeWaitExpired, Error: msg, Lease: sl.holderView()})
		}
		return
	}
}

// failQueue answers and removes the waiters match selects.
func (s *Scheduler) failQueue(sl *slot, match func(*waiter) bool, outcome, code, msg string) []string {
	var ids []string
	keep := sl.queue[:0]
	for _, w := range sl.queue {
		if !match(w) {
			keep = append(keep, w)
			continue
		}
		w.timer.Stop()
		s.counted(sl, w, -1)
		if w.task != nil {
			ids = append(ids, w.task.req.ID)
			s.answer(w.task, broker.TaskResult{Outcome: outcome, Code: code, Error: msg, LeaseEnded: staleFields(code, w.task, sl)})
		} else {
			w.acquire.Reply(broker.LeaseAnswer{V: broker.WireVersion, Code: code, Error: msg})
		}
	}
	clear(sl.queue[len(keep):])
	sl.queue = keep
	return ids
}

// dequeue takes the i-th waiter out of the queue.
func (s *Scheduler) dequeue(sl *slot, i int) *waiter {
	w := sl.queue[i]
	w.timer.Stop()
	sl.queue = append(sl.queue[:i], sl.queue[i+1:]...)
	s.counted(sl, w, -1)
	return w
}

// idle says whether the device runs nothing: no task, no check after a timeout.
func (sl *slot) idle() bool { return sl.running == nil && !sl.probing }

// holderTask is the index of the first queued task of the lease holder, or -1.
func (sl *slot) holderTask() int {
	for i, w := range sl.queue {
		if w.task != nil && w.task.req.Lease == sl.lease.Handle {
			return i
		}
	}
	return -1
}

// state derives the device state shown to others.
func (sl *slot) state() string {
	switch {
	case sl.health != broker.StateOnline:
		return sl.health
	case sl.running != nil, sl.probing: // a check after a timeout holds it as its task did
		return broker.StateBusy
	case sl.lease != nil:
		return broker.StateLeased
	}
	return broker.StateOnline
}

// show reports a state change to the metrics and the registry.
func (s *Scheduler) show(sl *slot) {
	st, reason := s.shownState(sl)
	var who broker.Holder
	if sl.lease != nil {
		who = sl.lease.Holder
	} else if sl.running != nil {
		who = sl.running.req.Holder
	}
	if who != sl.holder { // its name is shown as a string: built when it changes, not every call
		sl.holder, sl.holderName = who, who.String()
	}
	holder := sl.holderName
	draining := s.drained
	var running *broker.RunningTask
	if t := sl.running; t != nil {
		h := t.req.Holder
		running = &broker.RunningTask{ID: t.req.ID, Tool: t.req.Tool, Holder: &h, Started: t.started, Deadline: t.deadline, Expected: t.expected, Implicit: t.implicit}
	}
	// The queue is looked at only when it moved: a device without waiters costs nothing more.
	queue, queued, sameQueue := sl.info.Queue, sl.info.Queued, true
	if sl.queueMoved {
		sl.queueMoved = false
		queue, queued = sl.queueView()
		sameQueue = queued == sl.info.Queued && slices.Equal(queue, sl.info.Queue)
	}
	if st == sl.shown && holder == sl.info.Holder && sl.epoch == sl.info.Epoch && reason == sl.info.Reason && draining.shown(sl.info) &&
		running.SameTask(sl.info.Task) && sameQueue {
		return
	}
	if st != sl.shown {
		s.cfg.Metrics.moveDevice(sl.info.Platform, s.cfg.Node, sl.info.Serial, st)
		// Every task flips busy on and off; its record tells that story. Events are for the rest,
		// such as a halted device (halt.go) that recovered during a task: unhealthy to busy.
		routine := (st == broker.StateBusy || sl.shown == broker.StateBusy) && st != broker.StateUnhealthy && sl.shown != broker.StateUnhealthy
		if !routine || sl.health != broker.StateOnline {
			s.cfg.Mirror.Event(broker.Event{V: broker.WireVersion, Kind: "device", Serial: sl.info.Serial, Node: s.cfg.Node,
				What: st, Reason: reason, Epoch: sl.epoch, At: time.Now()})
		}
	}
	sl.shown = st
	sl.info.State, sl.info.Holder, sl.info.Epoch, sl.info.Reason, sl.info.Task = st, holder, sl.epoch, reason, running
	draining.show(&sl.info)
	sl.info.Queue, sl.info.Queued = queue, queued
	sl.info.Node, sl.info.Updated, sl.info.V = s.cfg.Node, time.Now(), broker.WireVersion
	s.cfg.Mirror.Device(sl.info)
}
