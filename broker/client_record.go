package broker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
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
// RecordAfter or seen a reconnection, for the task's record if the answer was lost.
func (c *Client) awaitTask(ctx context.Context, node string, req TaskRequest, res *TaskResult) error {
	if !validToken(req.ID) || c.reconnects == nil {
		return c.request(ctx, node, EndpointTask, req, res)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	w := &recordWatch{c: c, ctx: rctx, cancel: cancel, node: node, id: req.ID, serial: req.Serial, tool: req.Tool, sent: time.Now()}
	timer := time.AfterFunc(c.recordAfter(), w.start)
	c.reconnects.add(w)
	err := c.request(rctx, node, EndpointTask, req, res)
	timer.Stop()
	c.reconnects.remove(w)
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

// recordWatch looks for one task's record, from when start is first called until the call
// returns (ctx ends).
type recordWatch struct {
	c       *Client
	ctx     context.Context
	cancel  context.CancelCauseFunc
	node    string
	id      string
	serial  string
	tool    string
	sent    time.Time
	started atomic.Bool
	record  *TaskResult // the record that answered the call
}

// start runs the watch once, on the goroutine of the timer or reconnection that started it.
func (w *recordWatch) start() {
	if w.ctx.Err() != nil || !w.started.CompareAndSwap(false, true) {
		return
	}
	subject := fmt.Sprintf(EventTaskT, w.node, w.id)
	records := make(chan TaskResult, 1)
	// Subscribed before the first read: a record written in between is not missed. Only the
	// node may publish on its subject (PermissionsFor); the guard drops a consumer's deliveries.
	sub, err := w.c.nc.Subscribe(subject, w.c.guard.Msg(func(m *nats.Msg) {
		if r, ok := readRecord(m.Subject, m.Data); ok {
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
		case <-w.c.reconnects.next():
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
	return readRecord(m.Subject, m.Data)
}

// readRecord decodes a task record as a node's answer is decoded (it is the TaskResult the
// node answered, Record()ed), and keeps it if its subject vouches for it.
func readRecord(subject string, data []byte) (TaskResult, bool) {
	var r TaskResult
	if DecodeTaskResult(data, &r) != nil || !trustRecord(subject, r) {
		return TaskResult{}, false
	}
	return r, true
}

// reconnections wake the task calls waiting at a reconnection of the connection. A call
// registers in a set rather than with a goroutine or a status listener of its own: the usual
// call is short, and the connection's lock is the one every publish takes.
type reconnections struct {
	mu    sync.Mutex
	calls map[*recordWatch]struct{}
	epoch chan struct{} // closed at the next reconnection
}

func watchReconnections(ctx context.Context, nc *nats.Conn) *reconnections {
	r := &reconnections{calls: map[*recordWatch]struct{}{}, epoch: make(chan struct{})}
	ch := reconnects(nc)
	go func() {
		defer nc.RemoveStatusListener(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				r.mu.Lock()
				close(r.epoch)
				r.epoch = make(chan struct{})
				waiting := slices.Collect(maps.Keys(r.calls))
				r.mu.Unlock()
				for _, w := range waiting {
					go w.start()
				}
			}
		}
	}()
	return r
}

func (r *reconnections) add(w *recordWatch) {
	r.mu.Lock()
	r.calls[w] = struct{}{}
	r.mu.Unlock()
}

func (r *reconnections) remove(w *recordWatch) {
	r.mu.Lock()
	delete(r.calls, w)
	r.mu.Unlock()
}

// next ends at the connection's next reconnection.
func (r *reconnections) next() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.epoch
}
