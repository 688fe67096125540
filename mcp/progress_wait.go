package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// DefaultProgressEvery is how often a call with a progress token that is still waiting is
// told so (Options.ProgressEvery): well inside the TypeScript SDK's 60 s request timeout,
// which a progress notification resets.
const DefaultProgressEvery = 10 * time.Second

// waitingCeiling bounds the values of the gateway's own waiting notifications.
//
// The spec wants every notification's progress above the last one's, across the gateway's
// notifications and the task's own. The n-th waiting notification carries
// waitingCeiling·n/(n+1) and no total: it grows for ever and stays below a thousandth, so a
// task's own values, which start at or above 0, mostly go out as the node sent them. Only a
// task whose first value is not above the last waiting value (a task counting from 0) has
// waitingCeiling added to its values and its total: a thousandth of a unit keeps its
// progress/total ratio what it was, and progress == total still means done.
const waitingCeiling = 1e-3

// callProgress sends one call's notifications/progress, strictly increasing: the gateway's
// own while the call waits (in a device's queue, or for a task that says nothing of itself),
// then the task's. It sends nothing once the call has ended (end).
type callProgress struct {
	send    func(params map[string]any)
	token   mcpgo.ProgressToken
	started time.Time

	mu        sync.Mutex
	last      float64 // the last value sent
	sentAny   bool
	waitings  int     // waiting notifications sent
	offset    float64 // added to the task's values and total (waitingCeiling's comment)
	taskSpoke bool    // the task has reported: it speaks for itself from then on
	ended     bool
	what      func(elapsed time.Duration) string // what the call waits for now; nil: nothing to say

	stopTicks chan struct{} // nil until tellWhileWaiting
	ticksDone chan struct{}
}

// newCallProgress returns the progress sender of a call whose client sent a progress token;
// nil when it sent none (then nothing is sent for waiting, not even logging messages).
func newCallProgress(ctx context.Context, req mcpgo.CallToolRequest) *callProgress {
	srv := mcpserver.ServerFromContext(ctx)
	if srv == nil || req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	return &callProgress{token: req.Params.Meta.ProgressToken, started: time.Now(), send: func(params map[string]any) {
		notifyCall(ctx, srv, string(mcpgo.MethodNotificationProgress), params)
	}}
}

// tellWhileWaiting sends a waiting notification every every, saying what what says (see
// waitingFor), until the task reports progress of its own, the call's context ends or end is
// called. The first one also flushes the response's headers: the answer becomes an SSE stream.
func (p *callProgress) tellWhileWaiting(ctx context.Context, every time.Duration, what func(elapsed time.Duration) string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.what = what
	stop, done := make(chan struct{}), make(chan struct{})
	p.stopTicks, p.ticksDone = stop, done
	p.mu.Unlock()
	go p.tick(ctx, every, stop, done)
}

// waitingFor changes what the waiting notifications say, as the call moves on (acquire_device:
// from asking the devices to waiting in one's queue).
func (p *callProgress) waitingFor(what func(elapsed time.Duration) string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.what = what
}

func (p *callProgress) tick(ctx context.Context, every time.Duration, stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ctx.Done():
			return
		case now := <-ticker.C:
			if !p.tellWaiting(now.Sub(p.started)) {
				return
			}
		}
	}
}

// tellWaiting sends one waiting notification; false once there is no more to send (the task
// speaks for itself, or the call ended).
func (p *callProgress) tellWaiting(elapsed time.Duration) bool {
	p.mu.Lock()
	what := p.what
	p.mu.Unlock()
	var msg string
	if what != nil {
		msg = what(elapsed) // outside the lock: it may read the registry
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.taskSpoke || p.ended {
		return false
	}
	if msg == "" {
		return true
	}
	p.waitings++
	n := float64(p.waitings)
	p.sendLocked(waitingCeiling*n/(n+1), 0, msg)
	return true
}

// task sends the task's own progress, as a progress sink of Farm.Run.
func (p *callProgress) task(bp broker.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return // the spec: no progress after the call's answer
	}
	if !p.taskSpoke {
		p.taskSpoke = true
		if p.sentAny && bp.Progress <= p.last {
			p.offset = waitingCeiling
		}
	}
	v := bp.Progress + p.offset
	if p.sentAny && v <= p.last {
		return // a value that does not increase would break the client's contract: dropped
	}
	total := 0.0
	if bp.Total > 0 {
		total = bp.Total + p.offset
	}
	p.sendLocked(v, total, bp.Message)
}

// sendLocked sends one notification; p.mu is held, so that they leave in the order of their
// values (mcp-go queues them without blocking).
func (p *callProgress) sendLocked(progress, total float64, msg string) {
	params := map[string]any{"progressToken": p.token, "progress": progress}
	if total > 0 {
		params["total"] = total
	}
	if msg != "" {
		params["message"] = msg
	}
	p.send(params)
	p.last, p.sentAny = progress, true
}

// end stops the waiting notifications and waits for their goroutine to finish; nothing is sent
// after it. It is called as the call ends, before its answer goes out.
func (p *callProgress) end() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.ended = true
	stop, done := p.stopTicks, p.ticksDone
	p.stopTicks = nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

// deviceCallProgress is a device tool call's progress sink and the function that ends it: with a
// progress token, waiting notifications while its task waits in the device's queue (or runs
// without reporting), then the task's own; without one, progressSink's.
func (g *Gateway) deviceCallProgress(ctx context.Context, req mcpgo.CallToolRequest, long bool, task broker.TaskRequest) (func(broker.Progress), func()) {
	p := newCallProgress(ctx, req)
	if p == nil {
		return g.progressSink(ctx, req, long), func() {}
	}
	p.tellWhileWaiting(ctx, g.progressEvery, g.taskWaitText(task))
	return p.task, p.end
}

// taskWaitText says what a device tool's task waits for, from the registry: its place in the
// device's queue, the device's holder and running task, or its own task running.
func (g *Gateway) taskWaitText(task broker.TaskRequest) func(time.Duration) string {
	budget := time.Duration(task.WaitMS) * time.Millisecond
	return func(elapsed time.Duration) string {
		d, _ := g.farm.Device(task.Serial)
		if r := d.Task; r != nil && r.ID == task.ID {
			return fmt.Sprintf("running %s on %s: %s", task.Tool, task.Serial, waited(elapsed, 0))
		}
		return fmt.Sprintf("waiting for device %s%s%s; %s", task.Serial, placeText(d, task.ID), occupant(d, nil), waited(elapsed, budget))
	}
}

// occupant says who has the device, as the registry shows it: ": held by alice (claude)
// session 1a2b3c4d5e, at most until T; running tap since T". known is the lease a node's busy
// answer showed, if any: its hard end is told while the registry shows that same holding
// (sameHolding). "" when the registry shows no one (it lags the node by up to a quarter second).
func occupant(d broker.DeviceEntry, known *broker.Lease) string {
	s := ""
	if d.Holder != "" {
		s = ": held by " + d.Holder
		if known != nil && sameHolding(known, d) && !known.MaxUntil.IsZero() {
			s += ", at most until " + known.MaxUntil.UTC().Format(time.RFC3339)
		}
	}
	if r := d.Task; r != nil {
		who := ""
		if r.Holder != nil && d.Holder == "" {
			who = " for " + r.Holder.String()
		}
		sep := "; "
		if s == "" {
			sep = ": "
		}
		s += fmt.Sprintf("%srunning %s%s since %s", sep, r.Tool, who, r.Started.UTC().Format(time.RFC3339))
	}
	return s
}

// sameHolding reports whether the registry's entry d shows the holding that known, a node's
// busy answer, told of: the same lease (every grant moves the device's epoch on), or the same
// task run without a lease (which keeps the epoch of the lease before it).
func sameHolding(known *broker.Lease, d broker.DeviceEntry) bool {
	if known.Epoch != d.Epoch {
		return false
	}
	if r := known.Running; r != nil && r.Implicit {
		return d.Task != nil && d.Task.ID == r.ID
	}
	return d.Task == nil || !d.Task.Implicit
}

// waited is how long a call has waited: "30s of 600s" within a budget, "30s so far" without.
func waited(elapsed, budget time.Duration) string {
	secs := func(d time.Duration) int64 { return int64(d.Round(time.Second) / time.Second) }
	if budget > 0 {
		return fmt.Sprintf("%ds of %ds", secs(elapsed), secs(budget))
	}
	return fmt.Sprintf("%ds so far", secs(elapsed))
}

// acquireProgress starts acquire_device's waiting notifications for a caller that sent a
// progress token (nil otherwise): first while the matching devices are asked, then, as
// acquire and the group taker say (waitingFor), while it waits in a device's queue.
func (g *Gateway) acquireProgress(ctx context.Context, req mcpgo.CallToolRequest, a *acquireArgs) *callProgress {
	p := newCallProgress(ctx, req)
	p.tellWhileWaiting(ctx, g.progressEvery, func(elapsed time.Duration) string {
		return fmt.Sprintf("asking the devices matching %s for a lease; %s", a, waited(elapsed, 0))
	})
	return p
}

// requestWaitText says what acquire_device's lease request waits for in the queue of serial:
// its place there, found by the request's id ("" for one whose id the caller does not know: no
// place), its holder (known is the node's busy answer to this caller just before), how many
// waited ahead of this caller when it queued, and how long it has waited of wait_seconds.
func (g *Gateway) requestWaitText(serial, request string, known *broker.Lease, ahead int, budget time.Duration, group string) func(time.Duration) string {
	tag := broker.RequestTag(request)
	return func(elapsed time.Duration) string {
		d, _ := g.farm.Device(serial)
		return fmt.Sprintf("waiting for device %s%s%s%s; %d ahead of this call when it queued; %s",
			serial, group, placeText(d, tag), occupant(d, known), ahead, waited(elapsed, budget))
	}
}
