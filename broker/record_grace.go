package broker

import (
	"context"
	"errors"
	"sync"
	"time"
)

// recentAnswers are the tasks whose answer this client had less than recordGrace ago: a node
// answers a task first and records it just after, so only their records may be on the way.
type recentAnswers struct {
	mu    sync.Mutex
	at    map[string]time.Time // task id → when its answer came
	order []answer             // the same, oldest first: forgetting costs no scan of at
}

// answer is a task's answer coming at a time.
type answer struct {
	id string
	at time.Time
}

func newRecentAnswers() *recentAnswers { return &recentAnswers{at: map[string]time.Time{}} }

// add notes that task id's answer came now, and forgets the answers older than the grace. It
// is on every task's path: at thousands of answers a second, a scan of them all cost tens of
// µs a call (BenchmarkFloors' node path 42 → 72 µs).
func (r *recentAnswers) add(id string) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.order) > 0 && now.Sub(r.order[0].at) > recordGrace {
		if old := r.order[0]; r.at[old.id].Equal(old.at) {
			delete(r.at, old.id)
		}
		r.order = r.order[1:]
	}
	r.at[id] = now
	r.order = append(r.order, answer{id: id, at: now})
}

// graceOf is how long a record of task id may still take to be written: what is left of the
// grace after its answer, 0 for a task this client had no answer of lately.
func (r *recentAnswers) graceOf(id string) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	at, ok := r.at[id]
	if !ok {
		return 0
	}
	return max(recordGrace-time.Since(at), 0)
}

// PollTaskRecord reads a task's record as a caller polling for it wants: at once, waiting for
// a record not yet written only when this client had the task's answer lately (its node
// records it just after answering). A task that runs, or an id no task has, costs one read.
// TaskRecord waits the grace whatever the id, for callers that had the answer elsewhere.
func (c *Client) PollTaskRecord(ctx context.Context, id string) (TaskResult, error) {
	return c.taskRecordWithin(ctx, id, c.answered.graceOf(id))
}

// taskRecordWithin reads task id's record, reading again for up to grace while there is none.
func (c *Client) taskRecordWithin(ctx context.Context, id string, grace time.Duration) (TaskResult, error) {
	var res TaskResult
	if !validToken(id) {
		return res, errInvalidTaskID(id)
	}
	for wait := time.Now().Add(grace); ; {
		res, err := c.stores.taskRecord(ctx, id)
		if errors.Is(err, ErrNewerWire) {
			c.newer.warn(c.log, "record "+res.Node, res.V, "a task record of a newer wire version refused: upgrade the gateway", "node", res.Node, "task", id)
			return TaskResult{}, err
		}
		if !errors.Is(err, ErrNotFound) || !time.Now().Before(wait) {
			return res, err
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}
