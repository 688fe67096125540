package broker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A node's answer to a task is a core NATS reply, which can be lost (this client's connection
// reconnected while the task ran and the reply went out meanwhile); its record in the event
// stream is not. A call waiting long, or through a reconnection, also looks for the record,
// so that a lost answer cannot keep its caller (and an agent task's device) waiting for ever.
const (
	// DefaultRecordAfter is how long a task call waits for its answer alone: the usual call
	// ends sooner and never reads the event stream.
	DefaultRecordAfter = 30 * time.Second
	// recordReplyGrace is how long the node's answer still has once the record is there: the
	// node answers before it records, so an answer still to come is usually already on its way.
	recordReplyGrace = 2 * time.Second
	// recordPoll is how often a call waiting for its record reads it again. The subscription
	// misses a record written while this client was disconnected, and every record of an edge
	// site's node on the hub, whose event subjects never cross the site's link (LeafLocal).
	recordPoll = 10 * time.Second
)

// errAnsweredByRecord ends a task request whose record answered it.
var errAnsweredByRecord = errors.New("answered by the task's record")

// awaitTask sends a task to its node and waits for the answer, or, once the call has waited
// RecordAfter or seen a reconnection, for the task's record if the answer was lost. The watch
// shares the request's context: it ends the request as the node's loss does.
func (c *Client) awaitTask(ctx context.Context, node string, req TaskRequest, res *TaskResult) error {
	if !validToken(req.ID) || c.calls == nil {
		return c.request(ctx, node, EndpointTask, req, res)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := &recordWatch{c: c, ctx: rctx, cancel: cancel, node: node, id: req.ID, serial: req.Serial, tool: req.Tool}
	c.calls.add(w)
	err := c.send(ctx, rctx, cancel, node, EndpointTask, req, res)
	c.calls.remove(w)
	if err != nil && errors.Is(context.Cause(rctx), errAnsweredByRecord) {
		*res = *w.record // written before the cancel that ended the request
		return nil
	}
	return err
}

func (c *Client) recordAfter() time.Duration {
	if c.opts.RecordAfter > 0 {
		return c.opts.RecordAfter
	}
	return DefaultRecordAfter
}

// recordWatch looks for one task's record, from when start is called (once: taskCalls
// unlinks the call as it starts it) until the call returns (ctx ends).
type recordWatch struct {
	c          *Client
	ctx        context.Context
	cancel     context.CancelCauseFunc
	node       string
	id         string
	serial     string
	tool       string
	sent       time.Time    // set by taskCalls.add
	prev, next *recordWatch // in taskCalls' list while linked
	record     *TaskResult  // the record that answered the call
}

// start runs the watch, on a goroutine of its own.
func (w *recordWatch) start() {
	if w.ctx.Err() != nil {
		return
	}
	subject := fmt.Sprintf(EventTaskT, w.node, w.id)
	records := make(chan TaskResult, 1)
	// Subscribed before the first read: a record written in between is not missed. Only the
	// node may publish on its subject (PermissionsFor); the guard drops a consumer's deliveries.
	sub, err := w.c.nc.Subscribe(subject, w.c.guard.Msg(func(m *nats.Msg) {
		if r, ok := w.c.readRecord(m.Subject, m.Data); ok {
			select {
			case records <- r:
			default:
			}
		}
	}))
	if err == nil {
		defer func() { _ = sub.Unsubscribe() }()
	}
	var grace <-chan time.Time
	found := func(r TaskResult, ok bool) {
		if ok && grace == nil {
			w.record, grace = &r, time.After(recordReplyGrace)
		}
	}
	look := func() {
		if grace == nil {
			found(w.read(subject))
		}
	}
	look()
	w.c.log.Debug("a task's answer is long in coming: looking for its record too", "task", w.id, "node", w.node,
		"serial", w.serial, "tool", w.tool, "waited", time.Since(w.sent).Round(time.Millisecond), "recorded", grace != nil)
	poll := time.NewTicker(recordPoll)
	defer poll.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case r := <-records:
			found(r, true)
		case <-w.c.calls.next():
			look() // the subscription missed what came while disconnected
		case <-poll.C:
			look()
		case <-grace:
			w.c.log.Warn("a node's answer to a task was lost (core NATS reply, e.g. during a reconnection); answered from the task's record "+
				"in the event stream, which carries no image and has its secrets redacted",
				"task", w.id, "node", w.node, "serial", w.serial, "tool", w.tool, "outcome", w.record.Outcome,
				"waited", time.Since(w.sent).Round(time.Millisecond))
			w.cancel(errAnsweredByRecord)
			return
		}
	}
}

// read reads the task's record from the event stream once.
func (w *recordWatch) read(subject string) (TaskResult, bool) {
	ctx, cancel := context.WithTimeout(w.ctx, 5*time.Second)
	defer cancel()
	m, err := w.c.stores.Events.GetLastMsgForSubject(ctx, subject)
	if err != nil {
		if !errors.Is(err, jetstream.ErrMsgNotFound) && w.ctx.Err() == nil {
			w.c.log.Debug("could not read a task's record; reading it again later", "task", w.id, "subject", subject, "err", err)
		}
		return TaskResult{}, false
	}
	return w.c.readRecord(m.Subject, m.Data)
}

// readRecord decodes a task record as a node's answer is decoded (it is the TaskResult the
// node answered, Record()ed), and keeps it if its subject vouches for it and its version is
// not newer than this Corral's (the answer would have been refused too).
func (c *Client) readRecord(subject string, data []byte) (TaskResult, bool) {
	var r TaskResult
	if DecodeTaskResult(data, &r) != nil || !trustRecord(subject, r) {
		return TaskResult{}, false
	}
	if newerWire(r.V) {
		c.newer.warn(c.log, "record "+r.Node, r.V, "a task record of a newer wire version skipped: upgrade the gateway", "node", r.Node, "task", r.ID)
		return TaskResult{}, false
	}
	return r, true
}

// taskCalls are the task calls in flight, oldest first, until their watch starts: one timer
// starts those that have waited RecordAfter, a reconnection starts them all. A call has no
// timer, goroutine or status listener of its own: the usual call is short and never looks.
type taskCalls struct {
	after time.Duration
	due   *time.Timer // fires when head has waited after, or later: armed while any is linked

	mu         sync.Mutex
	head, tail *recordWatch
	armed      bool          // due is set to fire
	epoch      chan struct{} // closed at the next reconnection
}

func newTaskCalls(ctx context.Context, nc *nats.Conn, after time.Duration) *taskCalls {
	t := &taskCalls{after: after, epoch: make(chan struct{})}
	t.due = time.AfterFunc(after, t.startDue)
	t.due.Stop()
	ch := reconnects(nc)
	go func() {
		defer nc.RemoveStatusListener(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				t.mu.Lock()
				close(t.epoch)
				t.epoch = make(chan struct{})
				waiting := t.unlinkWhile(func(*recordWatch) bool { return true })
				t.mu.Unlock()
				for _, w := range waiting {
					go w.start()
				}
			}
		}
	}()
	return t
}

// add links a call that is sent now.
func (t *taskCalls) add(w *recordWatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w.sent = time.Now()
	if t.tail == nil {
		t.head = w
	} else {
		t.tail.next, w.prev = w, t.tail
	}
	t.tail = w
	if !t.armed { // then none was linked: w is the oldest
		t.armed = true
		t.due.Reset(t.after)
	}
}

// remove unlinks a call that returned, if its watch has not started.
func (t *taskCalls) remove(w *recordWatch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w.prev != nil || t.head == w {
		t.unlink(w)
	}
}

// startDue starts the watch of each call that has waited after, and sets the timer for the
// oldest one left. (A call that returned since the timer was set left nothing to start.)
func (t *taskCalls) startDue() {
	t.mu.Lock()
	now := time.Now()
	due := t.unlinkWhile(func(w *recordWatch) bool { return now.Sub(w.sent) >= t.after })
	if t.armed = t.head != nil; t.armed {
		t.due.Reset(t.head.sent.Add(t.after).Sub(now))
	}
	t.mu.Unlock()
	for _, w := range due {
		go w.start()
	}
}

// unlinkWhile unlinks the oldest calls while they are ok, and returns them; t.mu is held.
func (t *taskCalls) unlinkWhile(ok func(*recordWatch) bool) []*recordWatch {
	var out []*recordWatch
	for t.head != nil && ok(t.head) {
		out = append(out, t.head)
		t.unlink(t.head)
	}
	return out
}

// unlink takes w out of the list; t.mu is held.
func (t *taskCalls) unlink(w *recordWatch) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		t.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		t.tail = w.prev
	}
	w.prev, w.next = nil, nil
}

// next ends at the connection's next reconnection.
func (t *taskCalls) next() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.epoch
}
