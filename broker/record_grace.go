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
	mu sync.Mutex
	at map[string]time.Time // task id → when its answer came
}

func newRecentAnswers() *recentAnswers { return &recentAnswers{at: map[string]time.Time{}} }

// add notes that task id's answer came now, and forgets the answers older than the grace.
func (r *recentAnswers) add(id string) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for old, at := range r.at {
		if now.Sub(at) > recordGrace {
			delete(r.at, old)
		}
	}
	r.at[id] = now
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
